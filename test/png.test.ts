// The notebooks' picture codec (analysis/png.ts): PNGs decoded and re-encoded with a palette, pixel for pixel where
// there are few colours, every distinct hue kept where there are many, and the checks a picture test relies on.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';
import {
  crc32,
  decodePng,
  encodeIndexed,
  pictureStats,
  pngChunks,
  quantize,
  smallPng,
  type Rgba,
} from '../analysis/png.js';

/** An RGBA image from a function of the pixel. */
function image(width: number, height: number, at: (x: number, y: number) => [number, number, number, number]): Rgba {
  const rgba = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) rgba.set(at(x, y), 4 * (y * width + x));
  return { width, height, rgba };
}

/** A truecolour RGBA PNG with the given filter on every row (what Chromium writes, filters varying). */
function rgbaPng(img: Rgba, filter: number): Buffer {
  const stride = img.width * 4;
  const raw = Buffer.alloc(img.height * (stride + 1));
  for (let y = 0; y < img.height; y++) {
    raw[y * (stride + 1)] = filter;
    for (let x = 0; x < stride; x++) {
      const v = img.rgba[y * stride + x];
      const a = x >= 4 ? img.rgba[y * stride + x - 4] : 0,
        b = y > 0 ? img.rgba[(y - 1) * stride + x] : 0,
        c = x >= 4 && y > 0 ? img.rgba[(y - 1) * stride + x - 4] : 0;
      const p = a + b - c;
      const pred = [
        0,
        a,
        b,
        (a + b) >> 1,
        Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c)
          ? a
          : Math.abs(p - b) <= Math.abs(p - c)
            ? b
            : c,
      ][filter];
      raw[y * (stride + 1) + 1 + x] = (v - pred) & 255;
    }
  }
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4),
      crc = Buffer.alloc(4),
      t = Buffer.from(type, 'latin1');
    len.writeUInt32BE(data.length);
    crc.writeUInt32BE(crc32(t, data));
    return Buffer.concat([len, t, data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(img.width, 0);
  ihdr.writeUInt32BE(img.height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const noisy = image(23, 17, (x, y) => [(x * 37 + y * 11) & 255, (x * y * 5) & 255, (y * 29) & 255, 255]);

describe('PNG codec for the notebooks (analysis/png.ts)', () => {
  it('computes the CRC-32 of PNG chunks', () => {
    assert.equal(crc32(Buffer.from('IEND', 'latin1')), 0xae426082);
    assert.equal(crc32(Buffer.from('123456789', 'latin1')), 0xcbf43926);
  });
  it('decodes every row filter of an RGBA PNG, byte for byte', () => {
    for (const filter of [0, 1, 2, 3, 4]) {
      const back = decodePng(rgbaPng(noisy, filter));
      assert.deepEqual([back.width, back.height], [23, 17]);
      assert.deepEqual(Buffer.from(back.rgba), Buffer.from(noisy.rgba), `filter ${filter}`);
    }
  });
  it('round-trips a picture of few colours through the palette exactly', () => {
    const img = image(40, 30, (x, y) =>
      x === y ? [214, 39, 40, 255] : x > 20 ? [31, 119, 180, 255] : [255, 255, 255, 255],
    );
    const png = smallPng(rgbaPng(img, 1));
    assert.deepEqual(Buffer.from(decodePng(png).rgba), Buffer.from(img.rgba));
    assert.equal(pngChunks(png).find((c) => c.type === 'IHDR')!.data[9], 3, 'not an indexed PNG');
    assert.deepEqual(pictureStats(png), { width: 40, height: 30, colours: 3, drawn: 1 - 609 / 1200 });
  });
  it('keeps every distinct hue of a many-coloured picture, however few its pixels, and the same bytes each time', () => {
    // a grey ramp of 1000 shades fills the palette by frequency; one red pixel must still come out red
    const img = image(1000, 3, (x, y) =>
      x === 999 && y === 1 ? [220, 0, 0, 255] : [x % 256, x % 256, (x * 7) % 256, 255],
    );
    const q = quantize(img);
    assert.equal(q.palette.length, 256);
    assert.equal(q.palette[q.indices[1999]], 0xdc0000);
    const a = smallPng(rgbaPng(img, 4)),
      b = smallPng(rgbaPng(img, 0));
    assert.ok(a.equals(b), 'the same pixels gave different bytes');
    const back = decodePng(a).rgba;
    for (let i = 0; i < 3000; i++) {
      const err = [0, 1, 2].map((k) => Math.abs(back[4 * i + k] - img.rgba[4 * i + k]));
      assert.ok(Math.max(...err) <= 8, `pixel ${i} moved by ${err}`);
    }
  });
  it('composites transparency on white', () => {
    const img = image(2, 1, (x) => (x ? [0, 0, 0, 0] : [0, 0, 0, 128]));
    const { palette, indices } = quantize(img);
    assert.deepEqual(
      [...indices].map((i) => palette[i]),
      [0x7f7f7f, 0xffffff],
    );
  });
  it('measures a blank picture as nothing drawn', () => {
    const blank = encodeIndexed(10, 10, [0xffffff], new Uint8Array(100));
    assert.deepEqual(pictureStats(blank), { width: 10, height: 10, colours: 1, drawn: 0 });
  });
  it('refuses what is not a whole, supported PNG', () => {
    const png = smallPng(rgbaPng(noisy, 2));
    assert.throws(() => decodePng(Buffer.from('GIF89a')), /not a PNG/);
    assert.throws(() => decodePng(png.subarray(0, png.length - 20)), /truncated|IEND/);
    const bad = Buffer.from(png);
    bad[40] ^= 1;
    assert.throws(() => decodePng(bad), /bad CRC/);
    assert.throws(() => encodeIndexed(2, 2, [0], new Uint8Array(3)), /3 indices for 2 x 2/);
  });
  it('reads the committed figure exports (Chromium PNGs) and shrinks them', () => {
    const file = 'results/figures/table2_S.png';
    const orig = fs.readFileSync(file);
    const st = pictureStats(orig);
    assert.ok(st.width > 1000 && st.drawn > 0.05 && st.colours > 50, JSON.stringify(st));
    const small = smallPng(orig);
    assert.ok(small.length < orig.length / 2, `${small.length} of ${orig.length} bytes`);
    assert.equal(pictureStats(small).width, st.width);
  });
});
