// The machine a run ran on, as far as its numbers depend on it. TensorFlow's CPU kernels (oneDNN, Eigen) pick their
// code paths by the processor's vendor, family and model and by the vector extensions it has, and those paths round
// differently; a processor's marketing name does not identify them (virtual machines report "AMD EPYC" for several
// generations, with and without AVX-512). `tsx src/util/machine.ts` prints this machine's processor key.
import * as fs from 'node:fs';
import os from 'node:os';

/** This machine's processor as Node names it (`os.cpus()`), `unknown` where it names none. */
export function processorName(): string {
  return os.cpus()[0]?.model.trim() || 'unknown';
}

/** What decides a processor's floating-point code paths, as far as the kernels can see it. */
export interface Processor {
  /** the marketing name (os.cpus): for people, never compared */
  name: string;
  /** CPUID's vendor string (GenuineIntel, AuthenticAMD), or the architecture where /proc/cpuinfo is absent */
  vendor: string;
  family: string;
  model: string;
  /** the vector extensions the kernels dispatch on, widest first (VECTOR_FLAGS), `none` if it has none of them */
  isa: string;
  /** vendor-family-model-isa: the key a reference is made and looked up under */
  key: string;
}

/**
 * The CPU flags oneDNN's and Eigen's dispatch reads (the AMX, AVX-512, AVX2/FMA and AVX tiers), in the order the key
 * lists them. Two processors that agree on vendor, family, model and these flags run the same kernels.
 */
export const VECTOR_FLAGS = [
  'amx_tile',
  'amx_bf16',
  'amx_int8',
  'avx512f',
  'avx512bw',
  'avx512vl',
  'avx512_vnni',
  'avx512_bf16',
  'avx512_fp16',
  'avx2',
  'fma',
  'avx',
] as const;

/** The first value of a `/proc/cpuinfo` field (`name<TAB>: value`), or undefined. */
function cpuinfoField(text: string, name: string): string | undefined {
  const m = new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm').exec(text);
  return m?.[1].trim();
}

/** A processor from the text of `/proc/cpuinfo` (its first processor); `name` is the marketing name to keep. */
export function parseCpuinfo(text: string, name: string): Processor {
  const vendor = cpuinfoField(text, 'vendor_id') ?? cpuinfoField(text, 'CPU implementer') ?? os.arch();
  const family = cpuinfoField(text, 'cpu family') ?? cpuinfoField(text, 'CPU architecture') ?? '?';
  const model = cpuinfoField(text, 'model') ?? cpuinfoField(text, 'CPU part') ?? '?';
  const flags = new Set((cpuinfoField(text, 'flags') ?? cpuinfoField(text, 'Features') ?? '').split(/\s+/));
  const isa = VECTOR_FLAGS.filter((f) => flags.has(f)).join('+') || 'none';
  const key = [vendor, family, model, isa].join('-').replace(/[^A-Za-z0-9_+.-]/g, '_');
  return { name, vendor, family, model, isa, key };
}

/** This machine's processor (Linux: /proc/cpuinfo; elsewhere the architecture and Node's name only). */
export function thisProcessor(): Processor {
  let text = '';
  try {
    text = fs.readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    // not Linux: the key holds the architecture and the name, which is all Node offers
    return parseCpuinfo(`vendor_id: ${os.arch()}\nmodel: ${processorName()}`, processorName());
  }
  return parseCpuinfo(text, processorName());
}

/**
 * One core's single-precision peak from the vector extensions and the clock: fp32 lanes of the widest vector unit
 * the kernels use (16 with AVX-512, 8 with AVX2 or AVX, 4 otherwise), 2 flops per fused multiply-add (FMA; without it
 * a multiply and an add pipe, the same 2 per lane), and 2 such units per core (Zen 2-4, Skylake-SP and later
 * server cores: an assumption the bench states). `mhz`: /proc/cpuinfo's clock (a virtual machine reports the
 * nominal one; turbo is not counted).
 */
export function fmaPeakGflops(isa: string, mhz: number): { gflops: number; lanes: number; units: number } {
  const has = new Set(isa.split('+'));
  const lanes = has.has('avx512f') ? 16 : has.has('avx2') || has.has('avx') ? 8 : 4,
    units = 2;
  return { gflops: (lanes * 2 * units * mhz) / 1000, lanes, units };
}

/** The clock /proc/cpuinfo reports for the first processor, in MHz (NaN where there is none). */
export function cpuMhz(): number {
  try {
    return Number(cpuinfoField(fs.readFileSync('/proc/cpuinfo', 'utf8'), 'cpu MHz') ?? NaN);
  } catch {
    return Number.NaN;
  }
}

if (process.argv[1]?.endsWith('machine.ts')) {
  const p = thisProcessor();
  console.log(process.argv[2] === '--json' ? JSON.stringify(p) : p.key);
}
