// Whether a picture shows its emoji: a ✅ drawn with Noto Color Emoji is a green square with
// a white tick, a ❌ a red cross; without the font, Chromium draws an empty outlined box in
// the text's colour. Nothing else in the PR comment is that green, so the green squares of
// a picture are its ✅ cells. Used by scripts/pictures.mjs after it draws, and by
// test/docs/pictures.test.ts on the committed picture. Plain JavaScript so that the script
// can import it as it is; the types are in emoji-pixels.d.mts.
import { execFileSync } from 'node:child_process';
import { inflateSync } from 'node:zlib';

/** The Debian package that brings the font, and the family Chromium finds it by. */
export const EMOJI_FONT = Object.freeze({
  family: 'Noto Color Emoji',
  debianPackage: 'fonts-noto-color-emoji',
});

/** Why pictures with emoji cannot be drawn here, or undefined when the font is installed. */
export function emojiFontProblem(env = process.env) {
  let families;
  try {
    families = execFileSync('fc-list', [':', 'family'], { encoding: 'utf8', env });
  } catch {
    return `fc-list (fontconfig) did not run, so the emoji font cannot be found: apt-get install -y fontconfig ${EMOJI_FONT.debianPackage}`;
  }
  if (families.split('\n').some((line) => line.split(',').includes(EMOJI_FONT.family))) {
    return undefined;
  }
  return `the emoji font (${EMOJI_FONT.family}) is not installed, so every emoji would be drawn as an empty box: apt-get install -y ${EMOJI_FONT.debianPackage}`;
}

/** A PNG's pixels as RGBA: 8-bit truecolour (with or without alpha), not interlaced. */
export function decodePng(bytes) {
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  const [depth, colourType, , , interlace] = bytes.subarray(24, 29);
  const channels = { 2: 3, 6: 4 }[colourType];
  if (depth !== 8 || channels === undefined || interlace !== 0) {
    throw new Error(
      `a PNG of bit depth ${depth}, colour type ${colourType}, interlace ${interlace}: only 8-bit RGB or RGBA, not interlaced, is read`,
    );
  }
  const chunks = [];
  for (let at = 8; at < bytes.length;) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    if (type === 'IDAT') chunks.push(bytes.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(chunks));
  const stride = width * channels;
  const pixels = Buffer.alloc(width * height * 4);
  let previous = Buffer.alloc(stride);
  for (let y = 0; y < height; y += 1) {
    const filter = raw[y * (stride + 1)];
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    unfilter(filter, line, previous, channels);
    for (let x = 0; x < width; x += 1) {
      const from = x * channels;
      const to = (y * width + x) * 4;
      pixels[to] = line[from];
      pixels[to + 1] = line[from + 1];
      pixels[to + 2] = line[from + 2];
      pixels[to + 3] = channels === 4 ? line[from + 3] : 255;
    }
    previous = line;
  }
  return { width, height, pixels };
}

function unfilter(filter, line, previous, bpp) {
  for (let i = 0; i < line.length; i += 1) {
    const left = i >= bpp ? line[i - bpp] : 0;
    const up = previous[i];
    const upLeft = i >= bpp ? previous[i - bpp] : 0;
    let add = 0;
    if (filter === 1) add = left;
    else if (filter === 2) add = up;
    else if (filter === 3) add = (left + up) >> 1;
    else if (filter === 4) add = paeth(left, up, upLeft);
    line[i] = (line[i] + add) & 0xff;
  }
}

function paeth(a, b, c) {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** The ✅ green of Noto Color Emoji: far greener than red and blue. */
function isEmojiGreen(r, g, b) {
  return g >= 120 && g - r >= 50 && g - b >= 50;
}

/**
 * The green squares of a picture, as boxes in its pixels: each a connected patch of ✅ green
 * about as wide as it is high, at least `minSide` pixels on a side (a text line's emoji is
 * 14–20 px at scale 1).
 */
export function greenSquares({ width, height, pixels }, minSide = 10) {
  const seen = new Uint8Array(width * height);
  const green = (i) => isEmojiGreen(pixels[i * 4], pixels[i * 4 + 1], pixels[i * 4 + 2]);
  const squares = [];
  for (let start = 0; start < width * height; start += 1) {
    if (seen[start] || !green(start)) continue;
    const box = patchFrom(start, width, height, seen, green);
    const w = box.right - box.left + 1;
    const h = box.bottom - box.top + 1;
    if (Math.min(w, h) >= minSide && Math.max(w, h) <= 1.5 * Math.min(w, h)) squares.push(box);
  }
  return squares;
}

/** The bounding box of the connected patch of `start` (4-neighbours), marking it seen. */
function patchFrom(start, width, height, seen, green) {
  const box = { left: width, top: height, right: 0, bottom: 0 };
  const stack = [start];
  seen[start] = 1;
  while (stack.length > 0) {
    const i = stack.pop();
    const x = i % width;
    const y = (i - x) / width;
    box.left = Math.min(box.left, x);
    box.right = Math.max(box.right, x);
    box.top = Math.min(box.top, y);
    box.bottom = Math.max(box.bottom, y);
    for (const [nx, ny] of [
      [x - 1, y],
      [x + 1, y],
      [x, y - 1],
      [x, y + 1],
    ]) {
      if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
      const n = ny * width + nx;
      if (!seen[n] && green(n)) {
        seen[n] = 1;
        stack.push(n);
      }
    }
  }
  return box;
}
