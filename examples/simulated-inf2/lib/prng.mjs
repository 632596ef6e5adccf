// Seeded randomness: the simulator must be reproducible (same seed, same figures) yet
// look noisy. sfc32 is small, fast and passes PractRand; SHA-256 turns any text key
// into its 128-bit state, so streams for different purposes never overlap by accident.
import { createHash } from 'node:crypto';

/** A seeded generator of uniform, normal and lognormal draws, keyed by any text. */
export function createRandom(key) {
  const digest = createHash('sha256').update(String(key)).digest();
  let a = digest.readUInt32LE(0);
  let b = digest.readUInt32LE(4);
  let c = digest.readUInt32LE(8);
  let d = digest.readUInt32LE(12);

  function nextUint32() {
    const t0 = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    const t = (t0 + d) | 0;
    c = (c + t) | 0;
    return t >>> 0;
  }
  // Mix the state before the first draw, as sfc32's author recommends.
  for (let i = 0; i < 12; i += 1) nextUint32();

  /** Uniform on the open interval (0, 1): never 0, so log() is always safe. */
  function uniform() {
    return (nextUint32() + 0.5) / 4294967296;
  }

  /** Standard normal by Box–Muller; always consumes exactly two uniforms. */
  function normal() {
    const u1 = uniform();
    const u2 = uniform();
    return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  }

  /** Lognormal with the given median and log-space standard deviation. */
  function lognormal(median, sigma) {
    return median * Math.exp(sigma * normal());
  }

  /** Integer in [0, n). */
  function below(n) {
    return Math.floor(uniform() * n);
  }

  return { uniform, normal, lognormal, below };
}

/** Log-space sigma of a lognormal whose coefficient of variation is `cv`. */
export function sigmaForCv(cv) {
  return Math.sqrt(Math.log(1 + cv * cv));
}
