// PNG in plain TypeScript (node:zlib only), for the notebooks' static chart pictures:
//   decodePng      an 8-bit, non-interlaced PNG (grey, RGB, palette, with or without alpha) -> RGBA pixels
//   quantize       RGBA pixels -> at most 256 colours (every colour kept when there are few; else the most frequent,
//                  each other colour drawn as its nearest), composited on white
//   encodeIndexed  a palette and one index per pixel -> an indexed PNG (zlib level 9)
//   smallPng       the three in a row: a chart PNG as Chromium draws it (RGBA, lightly compressed) is 3-6 times
//                  smaller as an indexed one, which is what keeps a notebook with six charts under 1 MB
//   pictureStats   what a test asks of a picture: its size, colours and the share of pixels that are not background
// Every step is integer arithmetic on the bytes given, so the same input gives the same bytes on every machine.
import * as zlib from 'node:zlib';

export interface Rgba {
  width: number;
  height: number;
  /** 4 bytes per pixel, rows top to bottom */
  rgba: Uint8Array;
}

const SIGNATURE = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(...parts: Uint8Array[]): number {
  let c = 0xffffffff;
  for (const p of parts) for (let i = 0; i < p.length; i++) c = CRC_TABLE[(c ^ p[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** The chunks of a PNG, in order, each CRC checked; throws on anything that is not a whole PNG. */
export function pngChunks(buf: Uint8Array): { type: string; data: Buffer }[] {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (b.length < 8 || !b.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG (no PNG signature)');
  const out: { type: string; data: Buffer }[] = [];
  let at = 8;
  while (at < b.length) {
    if (at + 12 > b.length) throw new Error('truncated PNG chunk');
    const len = b.readUInt32BE(at);
    const type = b.subarray(at + 4, at + 8);
    if (at + 12 + len > b.length) throw new Error(`truncated PNG chunk ${type.toString('latin1')}`);
    const data = b.subarray(at + 8, at + 8 + len);
    if (crc32(type, data) !== b.readUInt32BE(at + 8 + len))
      throw new Error(`bad CRC in chunk ${type.toString('latin1')}`);
    out.push({ type: type.toString('latin1'), data });
    at += 12 + len;
    if (type.toString('latin1') === 'IEND') break;
  }
  if (out[0]?.type !== 'IHDR' || out.at(-1)?.type !== 'IEND')
    throw new Error('a PNG must start with IHDR, end with IEND');
  return out;
}

const paeth = (a: number, b: number, c: number) => {
  const p = a + b - c,
    pa = Math.abs(p - a),
    pb = Math.abs(p - b),
    pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
};

/** Decode an 8-bit, non-interlaced PNG (colour types 0, 2, 3, 4, 6) to RGBA. */
export function decodePng(buf: Uint8Array): Rgba {
  const chunks = pngChunks(buf);
  const ihdr = chunks[0].data;
  const width = ihdr.readUInt32BE(0),
    height = ihdr.readUInt32BE(4),
    depth = ihdr[8],
    type = ihdr[9],
    interlace = ihdr[12];
  const channels = ({ 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 } as Record<number, number>)[type];
  if (!channels || depth !== 8 || interlace !== 0) {
    throw new Error(`unsupported PNG: colour type ${type}, bit depth ${depth}, interlace ${interlace}`);
  }
  const plte = chunks.find((c) => c.type === 'PLTE')?.data;
  const trns = chunks.find((c) => c.type === 'tRNS')?.data;
  const raw = zlib.inflateSync(Buffer.concat(chunks.filter((c) => c.type === 'IDAT').map((c) => c.data)));
  const stride = width * channels;
  if (raw.length !== height * (stride + 1))
    throw new Error(`PNG data is ${raw.length} bytes, expected ${height * (stride + 1)}`);
  const px = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)],
      src = y * (stride + 1) + 1,
      row = y * stride;
    if (f > 4) throw new Error(`bad PNG filter ${f} in row ${y}`);
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? px[row + x - channels] : 0,
        b = y > 0 ? px[row - stride + x] : 0,
        c = x >= channels && y > 0 ? px[row - stride + x - channels] : 0;
      const v = raw[src + x];
      px[row + x] =
        f === 0
          ? v
          : f === 1
            ? v + a
            : f === 2
              ? v + b
              : f === 3
                ? v + ((a + b) >> 1)
                : f === 4
                  ? v + paeth(a, b, c)
                  : Number.NaN;
      if (f > 4) throw new Error(`bad PNG filter ${f} in row ${y}`);
    }
  }
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    const s = i * channels,
      d = i * 4;
    if (type === 6) rgba.set(px.subarray(s, s + 4), d);
    else if (type === 2) rgba.set([px[s], px[s + 1], px[s + 2], 255], d);
    else if (type === 0) rgba.set([px[s], px[s], px[s], 255], d);
    else if (type === 4) rgba.set([px[s], px[s], px[s], px[s + 1]], d);
    else {
      const k = px[s];
      if (!plte || 3 * k + 2 >= plte.length) throw new Error(`palette index ${k} outside the palette`);
      rgba.set([plte[3 * k], plte[3 * k + 1], plte[3 * k + 2], trns && k < trns.length ? trns[k] : 255], d);
    }
  }
  return { width, height, rgba };
}

/** RGBA composited on white, as 0xRRGGBB per pixel. */
function opaque(img: Rgba): Uint32Array {
  const out = new Uint32Array(img.width * img.height);
  const on = (v: number, a: number) => Math.round((v * a + 255 * (255 - a)) / 255);
  for (let i = 0; i < out.length; i++) {
    const a = img.rgba[4 * i + 3];
    const [r, g, b] = [0, 1, 2].map((k) => on(img.rgba[4 * i + k], a));
    out[i] = (r << 16) | (g << 8) | b;
  }
  return out;
}

const distance = (p: number, c: number) => {
  const dr = ((p >> 16) & 255) - ((c >> 16) & 255),
    dg = ((p >> 8) & 255) - ((c >> 8) & 255),
    db = (p & 255) - (c & 255);
  return dr * dr + dg * dg + db * db;
};

/**
 * At most `max` colours: every colour when there are no more. Else the palette is filled in passes over the colours,
 * most frequent first (ties by colour value), each pass taking a colour only if it lies farther than the pass's
 * distance from every colour taken (64, 32, 16, 8, 4 in RGB units, then any): the first pass keeps every distinct hue,
 * however few its pixels (a colour bar's red end), the later ones the shades in between. Every other colour is drawn
 * as its nearest (squared RGB distance). Returns the palette (0xRRGGBB) and an index per pixel.
 */
export function quantize(img: Rgba, max = 256): { palette: number[]; indices: Uint8Array } {
  const px = opaque(img);
  const counts = new Map<number, number>();
  for (const c of px) counts.set(c, (counts.get(c) ?? 0) + 1);
  const byCount = [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([c]) => c);
  const palette: number[] = [];
  const taken = new Set<number>();
  for (const gap of [64, 32, 16, 8, 4, 0]) {
    for (const c of byCount) {
      if (palette.length >= max) break;
      if (taken.has(c) || palette.some((p) => distance(p, c) <= gap * gap - (gap ? 0 : 1))) continue;
      palette.push(c);
      taken.add(c);
    }
  }
  const index = new Map<number, number>(palette.map((c, i) => [c, i]));
  const nearest = (c: number) => {
    let best = 0,
      bestD = Infinity;
    for (let i = 0; i < palette.length; i++) {
      const d = distance(palette[i], c);
      if (d < bestD) [best, bestD] = [i, d];
    }
    return best;
  };
  const indices = new Uint8Array(px.length);
  for (let i = 0; i < px.length; i++) {
    let k = index.get(px[i]);
    if (k === undefined) index.set(px[i], (k = nearest(px[i])));
    indices[i] = k;
  }
  return { palette, indices };
}

function chunk(type: string, data: Uint8Array): Buffer {
  const t = Buffer.from(type, 'latin1');
  const head = Buffer.alloc(4),
    tail = Buffer.alloc(4);
  head.writeUInt32BE(data.length);
  tail.writeUInt32BE(crc32(t, data));
  return Buffer.concat([head, t, data, tail]);
}

/** An indexed 8-bit PNG of `width` x `height` pixels (no filter: the smallest for flat-coloured charts). */
export function encodeIndexed(width: number, height: number, palette: number[], indices: Uint8Array): Buffer {
  if (palette.length < 1 || palette.length > 256) throw new Error(`a palette of ${palette.length} colours`);
  if (indices.length !== width * height) throw new Error(`${indices.length} indices for ${width} x ${height} pixels`);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 3, 0, 0, 0], 8);
  const plte = Buffer.alloc(3 * palette.length);
  palette.forEach((c, i) => plte.set([(c >> 16) & 255, (c >> 8) & 255, c & 255], 3 * i));
  const raw = Buffer.alloc(height * (width + 1));
  for (let y = 0; y < height; y++) raw.set(indices.subarray(y * width, (y + 1) * width), y * (width + 1) + 1);
  const idat = zlib.deflateSync(raw, { level: 9, memLevel: 9 });
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', ihdr),
    chunk('PLTE', plte),
    chunk('IDAT', idat),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A PNG re-encoded with at most 256 colours (see quantize): the same picture, a few times smaller. */
export function smallPng(png: Uint8Array, max = 256): Buffer {
  const img = decodePng(png);
  const { palette, indices } = quantize(img, max);
  return encodeIndexed(img.width, img.height, palette, indices);
}

export interface PictureStats {
  width: number;
  height: number;
  /** distinct colours (composited on white) */
  colours: number;
  /** share of pixels that differ from the most frequent colour (the background) */
  drawn: number;
}

/** Size, colours and how much is drawn on the background: a blank or one-colour picture has drawn 0. */
export function pictureStats(png: Uint8Array): PictureStats {
  const img = decodePng(png);
  const px = opaque(img);
  const counts = new Map<number, number>();
  for (const c of px) counts.set(c, (counts.get(c) ?? 0) + 1);
  let background = 0;
  for (const n of counts.values()) background = Math.max(background, n);
  return { width: img.width, height: img.height, colours: counts.size, drawn: 1 - background / px.length };
}
