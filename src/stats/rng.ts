// A small seeded random number generator, so that the same inputs always give the same
// report: sfc32 seeded from a string through FNV-1a.

export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
}

export function seededRandom(seed: string): Random {
  let a = hashString(seed, 0x811c9dc5);
  let b = hashString(seed, 0x9e3779b9);
  let c = hashString(seed, 0x85ebca6b);
  let d = 1;
  const next = (): number => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  // The first outputs of sfc32 are correlated with the seed; discard them.
  for (let i = 0; i < 12; i += 1) next();
  return { next };
}

function hashString(text: string, offset: number): number {
  let hash = offset >>> 0;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** Standard normal draw (Box–Muller). */
export function normal(random: Random): number {
  const u = 1 - random.next();
  const v = random.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** Gamma(shape, 1) draw (Marsaglia–Tsang; boosted for shape < 1). */
export function gamma(random: Random, shape: number): number {
  if (shape < 1) return gamma(random, shape + 1) * Math.pow(1 - random.next(), 1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = normal(random);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = 1 - random.next();
    if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
  }
}

/** Beta(a, b) draw from two gamma draws. */
export function beta(random: Random, a: number, b: number): number {
  const x = gamma(random, a);
  const y = gamma(random, b);
  return x / (x + y);
}
