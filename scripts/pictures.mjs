// `npm run pictures`: remakes the docs' pictures, docs/images/<name>.png, one per shot of
// scripts/pictures/shots.ts, and records in docs/images/pictures.json a sha256 of what each
// was rendered from, which test/docs/pictures.test.ts recomputes to tell a stale picture.
// The PR comment is today's demo (scripts/demo.mjs: the bundled gate of dist/ on the
// simulator) rendered with GitHub's Markdown renderer (cmark-gfm) and Mermaid; the
// dashboard's pictures are the page of a generated, seeded history. Chromium takes them.
// Needs `npm ci` and Debian's chromium, cmark-gfm and an emoji font, without which it refuses
// to draw; after drawing the comment it checks its ✅ came out green (scripts/emoji-pixels.mjs):
//   apt-get install -y chromium cmark-gfm fonts-noto-color-emoji
// Usage: node scripts/pictures.mjs [NAME...]   (those shots only; every shot by default)
/* global document, window, requestAnimationFrame -- the functions handed to a page run there */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CHROMIUM, CHROMIUM_FLAGS } from './chromium.mjs';
import { decodePng, emojiFontProblem, greenSquares } from './emoji-pixels.mjs';

const root = resolve(import.meta.dirname, '..');
process.chdir(root);

// Without the emoji font every ✅ and ❌ of the comment is drawn as an empty box.
const fontProblem = emojiFontProblem();
if (fontProblem) {
  console.error(`npm run pictures: not drawing: ${fontProblem}`);
  process.exit(1);
}

/** When a page is ready for its picture: the comment's charts drawn, a first chart drawn. */
const READY = {
  'demo-comment': () => document.title !== '',
  'history-dashboard': () => (window.__dashboard?.drawn ?? 0) > 0,
};

const pictures = await bundlePictures();
const names = process.argv.slice(2);
const unknown = names.filter((name) => !pictures.SHOTS.some((shot) => shot.name === name));
if (unknown.length > 0) {
  const known = pictures.SHOTS.map((shot) => shot.name).join(', ');
  throw new Error(`no shot named ${unknown.join(', ')} in scripts/pictures/shots.ts: ${known}`);
}
const shots = pictures.SHOTS.filter((shot) => names.length === 0 || names.includes(shot.name));
const inputs = pictures.makeInputs(root, [...new Set(shots.map((shot) => shot.input))]);
const mermaid = pictures.mermaidVersion(root);

const manifestFile = join(root, pictures.MANIFEST_PATH);
const manifest = existsSync(manifestFile)
  ? JSON.parse(readFileSync(manifestFile, 'utf8'))
  : { remake: 'npm run pictures', pictures: {} };
const work = mkdtempSync(join(tmpdir(), 'perf-gate-pictures-'));
const { default: puppeteer } = await import('puppeteer-core');
const browser = await puppeteer.launch({
  executablePath: CHROMIUM,
  headless: true,
  userDataDir: join(work, 'profile'),
  args: [...CHROMIUM_FLAGS, '--hide-scrollbars'],
});
try {
  for (const shot of shots) {
    await takePicture(shot);
    const path = pictures.picturePath(shot);
    manifest.pictures[path] = pictures.manifestEntry(
      shot,
      pictures.fingerprint(shot, inputs, mermaid),
    );
  }
} finally {
  await browser.close();
  rmSync(work, { recursive: true, force: true });
}
manifest.pictures = Object.fromEntries(Object.entries(manifest.pictures).sort());
writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`${pictures.MANIFEST_PATH}: what ${shots.length} picture(s) were rendered from`);

/** scripts/pictures/*.ts bundled as the benches are (rollup.bench.config.js), and loaded. */
async function bundlePictures() {
  const { rollup } = await import('rollup');
  const { default: typescript } = await import('@rollup/plugin-typescript');
  const { nodeResolve } = await import('@rollup/plugin-node-resolve');
  const { default: commonjs } = await import('@rollup/plugin-commonjs');
  const { default: json } = await import('@rollup/plugin-json');
  const { rawText } = await import('../rollup.raw-text.js');
  const quiet = new Set(['THIS_IS_UNDEFINED', 'CIRCULAR_DEPENDENCY', 'INVALID_ANNOTATION']);
  const bundle = await rollup({
    input: 'scripts/pictures/index.ts',
    plugins: [
      rawText(),
      typescript({
        tsconfig: './tsconfig.json',
        include: ['src/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
        noEmit: false,
        outDir: undefined,
      }),
      nodeResolve({ preferBuiltins: true, exportConditions: ['node'] }),
      commonjs(),
      json(),
    ],
    // Type errors are `tsc --noEmit`'s to report (npm test), as with `rollup --silent` for
    // the benches: the plugin checks every file of tsconfig.json, browser code included.
    onwarn: (warning, warn) =>
      quiet.has(warning.code) || warning.plugin === 'typescript' ? undefined : warn(warning),
  });
  const file = join(root, '.tmp', 'pictures', 'index.js');
  await bundle.write({ file, format: 'es', inlineDynamicImports: true });
  await bundle.close();
  return import(pathToFileURL(file).href);
}

/** Opens the shot's page in a window of its size, does its actions and takes the picture. */
async function takePicture(shot) {
  const file = join(work, `${shot.name}.html`);
  writeFileSync(file, pageOf(shot));
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  await page.setViewport({ ...shot.viewport, deviceScaleFactor: shot.scale ?? 1 });
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction(READY[shot.input], { timeout: 30_000 });
  await page.evaluate(() => document.fonts.ready);
  for (const action of shot.actions ?? []) await perform(page, action);
  const path = join(root, pictures.picturePath(shot));
  mkdirSync(join(path, '..'), { recursive: true });
  if (shot.element) {
    const element = await found(page, shot.element);
    await element.screenshot({ path });
  } else {
    await page.screenshot({ path, fullPage: shot.fullPage === true });
  }
  if (errors.length > 0)
    throw new Error(`${shot.name}: the page logged errors:\n${errors.join('\n')}`);
  const png = readFileSync(path); // its IHDR chunk: width and height
  if (shot.input === 'demo-comment') checkEmojiDrawn(shot, png);
  console.log(`${pictures.picturePath(shot)}: ${png.readUInt32BE(16)}×${png.readUInt32BE(20)} px`);
  // Worth a look: a page wider than its window is cut off on the right.
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  if (wide > shot.viewport.width)
    console.log(`  note: the page is ${wide} px wide, the window ${shot.viewport.width} px`);
  await page.close();
}

/**
 * Fails when the comment's ✅ cells came out as anything but Noto's green squares (an empty
 * box when a font is missing): one green square for each ✅ shown outside a folded part.
 */
function checkEmojiDrawn(shot, png) {
  const comment = inputs['demo-comment'];
  const folded = comment.indexOf('<details');
  const open = folded < 0 ? comment : comment.slice(0, folded);
  const shown = open.split('✅').length - 1;
  const drawn = greenSquares(decodePng(png), 10 * (shot.scale ?? 1)).length;
  if (drawn !== shown) {
    throw new Error(
      `${pictures.picturePath(shot)}: ${drawn} ✅ drawn as green squares, ${shown} in the comment: are the emoji empty boxes? (apt-get install -y fonts-noto-color-emoji)`,
    );
  }
}

function pageOf(shot) {
  if (shot.input === 'history-dashboard') return inputs['history-dashboard'];
  const body = execFileSync('cmark-gfm', pictures.CMARK_GFM_ARGS, {
    input: inputs['demo-comment'],
    encoding: 'utf8',
  });
  const script = join(root, 'node_modules', 'mermaid', 'dist', 'mermaid.min.js');
  return pictures.commentPage(body, pathToFileURL(script).href, shot.viewport.width);
}

async function found(page, selector) {
  const element = await page.$(selector);
  if (!element) throw new Error(`no element matches ${selector}`);
  // In view, and drawn if it is one of the dashboard's charts (they draw when in view).
  await element.evaluate((e) => e.scrollIntoView({ block: 'nearest' }));
  await page.waitForFunction(
    (e) => !e.matches('article.card') || e.classList.contains('drawn'),
    { timeout: 10_000 },
    element,
  );
  return element;
}

async function perform(page, action) {
  if ('click' in action) {
    await (await found(page, action.click)).click();
  } else {
    const element = await found(page, action.hover);
    const at = await element.evaluate((e, point) => {
      const chart = window.__dashboard?.charts?.get(e);
      const box = (chart ? chart.over : e).getBoundingClientRect();
      if (point === null) return { x: box.left + box.width / 2, y: box.top + box.height / 2 };
      if (!chart) throw new Error('hover with a point: the element holds no chart');
      const index = point < 0 ? chart.data[0].length + point : point;
      // The newest point lies on the plot's right edge, which is just outside its box.
      const inside = (value, low, size) => Math.min(low + size - 1, Math.max(low + 1, value));
      return {
        x: inside(box.left + chart.valToPos(chart.data[0][index], 'x'), box.left, box.width),
        y: inside(box.top + chart.valToPos(chart.data[1][index], 'y'), box.top, box.height),
      };
    }, action.point ?? null);
    await page.mouse.move(at.x, at.y, { steps: 2 });
  }
  // The page answers on its next frames (uPlot moves its cursor on an animation frame).
  await page.evaluate(
    () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))),
  );
}
