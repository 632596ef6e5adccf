// The benches' own seeded generator (sfc32 seeded through a string hash), independent of
// the one the gate uses for its bootstrap, so the synthetic data never share a stream with
// the code under test. The same seed always gives the same numbers.

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Standard normal (Box–Muller, both values used). */
  normal(): number;
}

export function createRng(seed: string): Rng {
  let a = hash(seed, 0x9e3779b9);
  let b = hash(seed, 0x243f6a88);
  let c = hash(seed, 0xb7e15162);
  let d = 1;
  const next = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 15; i += 1) next();
  let spare: number | undefined;
  const normal = (): number => {
    if (spare !== undefined) {
      const value = spare;
      spare = undefined;
      return value;
    }
    const radius = Math.sqrt(-2 * Math.log(1 - next()));
    const angle = 2 * Math.PI * next();
    spare = radius * Math.sin(angle);
    return radius * Math.cos(angle);
  };
  return { next, normal };
}

/** FNV-1a with a chosen offset, then a murmur3 finalizer to spread short seeds. */
function hash(text: string, offset: number): number {
  let h = offset >>> 0;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}
