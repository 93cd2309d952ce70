// The processor key (src/util/machine.ts): what decides TensorFlow's CPU arithmetic, not the marketing name.
import { strict as assert } from 'node:assert';
import { parseCpuinfo, thisProcessor } from '../src/util/machine.js';

/** A /proc/cpuinfo first block as Linux prints it on x86 (tabs before the colons). */
const cpuinfo = (vendor: string, family: number, model: number, flags: string) =>
  `processor\t: 0\nvendor_id\t: ${vendor}\ncpu family\t: ${family}\nmodel\t\t: ${model}\nmodel name\t: AMD EPYC\n` +
  `stepping\t: 1\nflags\t\t: fpu vme sse sse2 ${flags} rdrand\n\nprocessor\t: 1\nvendor_id\t: Other\n`;

describe('processor key', () => {
  it('an AVX2-only EPYC and an AVX-512 EPYC of the same name get different keys', () => {
    const milan = parseCpuinfo(cpuinfo('AuthenticAMD', 25, 1, 'fma avx avx2'), 'AMD EPYC');
    const genoa = parseCpuinfo(cpuinfo('AuthenticAMD', 25, 17, 'avx avx2 fma avx512f avx512bw avx512vl'), 'AMD EPYC');
    assert.equal(milan.key, 'AuthenticAMD-25-1-avx2+fma+avx');
    assert.equal(genoa.key, 'AuthenticAMD-25-17-avx512f+avx512bw+avx512vl+avx2+fma+avx');
    assert.equal(milan.name, genoa.name);
  });
  it('reads the first processor only, and the vendor, family and model fields exactly', () => {
    const p = parseCpuinfo(cpuinfo('GenuineIntel', 6, 143, 'avx2 avx512f amx_tile'), 'Intel(R) Xeon(R) Processor');
    assert.deepEqual(
      { vendor: p.vendor, family: p.family, model: p.model, isa: p.isa },
      { vendor: 'GenuineIntel', family: '6', model: '143', isa: 'amx_tile+avx512f+avx2' },
    );
  });
  it('a processor with none of the vector flags is `none`, and the same flags in another order give one key', () => {
    assert.equal(parseCpuinfo(cpuinfo('X', 1, 2, 'sse4_2'), 'x').isa, 'none');
    assert.equal(
      parseCpuinfo(cpuinfo('X', 1, 2, 'avx fma avx2'), 'x').key,
      parseCpuinfo(cpuinfo('X', 1, 2, 'avx2 avx fma'), 'x').key,
    );
  });
  it('this machine has a key made of safe characters', () => {
    assert.match(thisProcessor().key, /^[A-Za-z0-9_+.-]+$/);
  });
});
