// The docs' pictures (docs/images/*.png) show today's code: what each was rendered from is
// made again, without a browser (the demo's comment.md through the bundled gate, the
// dashboard page of the generated history), and its sha256 compared with the one
// `npm run pictures` recorded in docs/images/pictures.json when it took the picture.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_FLAGS } from '../../scripts/chromium.mjs';
import {
  decodePng,
  emojiFontProblem,
  EMOJI_FONT,
  greenSquares,
} from '../../scripts/emoji-pixels.mjs';
import {
  comparableComment,
  fingerprint,
  manifestEntry,
  MANIFEST_PATH,
  staleness,
  type Manifest,
} from '../../scripts/pictures/fingerprint.js';
import { makeInputs, mermaidVersion, type PictureInputs } from '../../scripts/pictures/inputs.js';
import { picturePath, SHOTS } from '../../scripts/pictures/shots.js';

const ROOT = resolve(import.meta.dirname, '../..');
const exists = (path: string) => existsSync(join(ROOT, path));

let inputs: PictureInputs;
let mermaid: string;

beforeAll(() => {
  inputs = makeInputs(ROOT) as PictureInputs;
  mermaid = mermaidVersion(ROOT);
}, 180_000);

function fingerprints(from: PictureInputs): Map<string, string> {
  return new Map(SHOTS.map((shot) => [shot.name, fingerprint(shot, from, mermaid)]));
}

/** The manifest `npm run pictures` would write after rendering from these inputs. */
function manifestOf(from: PictureInputs): Manifest {
  const sums = fingerprints(from);
  return {
    remake: 'npm run pictures',
    pictures: Object.fromEntries(
      SHOTS.map((shot) => [picturePath(shot), manifestEntry(shot, sums.get(shot.name)!)]),
    ),
  };
}

describe('the pictures of the docs', () => {
  it('were rendered from what the demo and the dashboard make today', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, MANIFEST_PATH), 'utf8')) as Manifest;
    const problems = staleness(manifest, SHOTS, fingerprints(inputs), exists);
    expect(problems, `\n${problems.join('\n')}\n`).toEqual([]);
  });

  it('are PNG files of their shot’s width, each shown on a page of the docs', () => {
    const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`)]
      .filter((page) => page.endsWith('.md'))
      .map((page) => readFileSync(join(ROOT, page), 'utf8'))
      .join('\n');
    for (const shot of SHOTS) {
      const png = readFileSync(join(ROOT, picturePath(shot)));
      expect(png.subarray(1, 4).toString('latin1'), shot.name).toBe('PNG');
      const width = png.readUInt32BE(16); // the IHDR chunk's first field
      const window = shot.viewport.width * (shot.scale ?? 1);
      if (shot.element) expect(width, shot.name).toBeLessThanOrEqual(window);
      else expect(width, shot.name).toBe(window);
      const shown = pages.includes(`images/${shot.name}.png`);
      expect(shown, `${picturePath(shot)} is shown on no page of the docs`).toBe(true);
    }
  });

  it('go stale with the comment alone, or with the dashboard page alone', () => {
    const recorded = manifestOf(inputs);
    const stale = (changed: Partial<PictureInputs>) =>
      staleness(recorded, SHOTS, fingerprints({ ...inputs, ...changed }), exists);
    expect(stale({})).toEqual([]);
    const comment = inputs['demo-comment'].replace('performance regression', 'slower');
    expect(comment).not.toBe(inputs['demo-comment']);
    expect(stale({ 'demo-comment': comment })).toEqual([
      'docs/images/pr-comment.png is stale: run `npm run pictures`',
    ]);
    const page = inputs['history-dashboard'].replace('</style>', '.card{padding:0}</style>');
    expect(page).not.toBe(inputs['history-dashboard']);
    expect(stale({ 'history-dashboard': page })).toEqual(
      SHOTS.filter((shot) => shot.input === 'history-dashboard').map(
        (shot) => `${picturePath(shot)} is stale: run \`npm run pictures\``,
      ),
    );
  });

  it('stay fresh when only the demo’s run times, clock and sandbox differ', () => {
    const recorded = manifestOf(inputs);
    const elsewhere = inputs['demo-comment']
      .replace(/ok in [\d.]+ s$/m, 'ok in 1 min 3 s')
      .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/, '2031-01-02T03:04:05.678Z')
      .replace(/isolation: [\w-]+/, 'isolation: none');
    expect(elsewhere).not.toBe(inputs['demo-comment']);
    expect(comparableComment(elsewhere)).toBe(comparableComment(inputs['demo-comment']));
    expect(
      staleness(recorded, SHOTS, fingerprints({ ...inputs, 'demo-comment': elsewhere }), exists),
    ).toEqual([]);
    // What is blanked is only that: the figures and the verdict stay in.
    const comparable = comparableComment(inputs['demo-comment']);
    expect(comparable).toMatch(/^- run 1 \(clean\): ok in …$/m);
    expect(comparable).toMatch(/^<sub>neuron-perf-gate [\d.]+ · …<\/sub>$/m);
    expect(comparable).toContain('## ❌ neuron-perf-gate: performance regression');
    expect(comparable).toMatch(/\| throughput \(queries\/s\) +\| +[\d.]+ \|/);
  });

  it('name a picture that is missing, or that no shot makes', () => {
    const recorded = manifestOf(inputs);
    recorded.pictures['docs/images/old.png'] = { from: 'by hand', sha256: '0'.repeat(64) };
    const problems = staleness(
      recorded,
      SHOTS,
      fingerprints(inputs),
      (path) => path !== 'docs/images/dashboard-phone.png',
    );
    expect(problems).toEqual([
      'docs/images/dashboard-phone.png is missing: run `npm run pictures`',
      'docs/images/old.png is in docs/images/pictures.json, but no shot of scripts/pictures/shots.ts makes it: remove its entry',
    ]);
  });
});

/** A fontconfig setup that hides the emoji font, as on a machine without it. */
async function withoutEmojiFont(dir: string): Promise<string> {
  const file = join(dir, 'fonts.conf');
  await writeFile(
    file,
    `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <selectfont><rejectfont><pattern>
    <patelt name="family"><string>${EMOJI_FONT.family}</string></patelt>
  </pattern></rejectfont></selectfont>
</fontconfig>
`,
  );
  return file;
}

/** A line of text with two ✅ and a ❌, drawn by Chromium with the fonts `env` lets it see. */
async function drawEmojiLine(dir: string, env: NodeJS.ProcessEnv): Promise<Buffer> {
  const page = join(dir, 'emoji.html');
  await writeFile(
    page,
    '<!doctype html><meta charset="utf-8"><body style="margin:0;background:#fff;font:16px sans-serif">' +
      '<p>✅ within threshold · ❌ regression · ✅ unchanged</p>',
  );
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    userDataDir: await mkdtemp(join(dir, 'profile-')),
    args: [...CHROMIUM_FLAGS],
    env,
  });
  try {
    const tab = await browser.newPage();
    await tab.setViewport({ width: 400, height: 60, deviceScaleFactor: 2 });
    await tab.goto(pathToFileURL(page).href);
    await tab.evaluate(() => document.fonts.ready);
    return Buffer.from(await tab.screenshot({ type: 'png' }));
  } finally {
    await browser.close();
  }
}

describe('the emoji of the pictures', () => {
  it('the committed PR comment shows each ✅ of its open part as a green square in the Verdict column', () => {
    const comment = inputs['demo-comment'];
    const folded = comment.indexOf('<details');
    const shown = (folded < 0 ? comment : comment.slice(0, folded)).split('✅').length - 1;
    expect(shown).toBeGreaterThan(0);
    const shot = SHOTS.find((s) => s.input === 'demo-comment')!;
    const image = decodePng(readFileSync(join(ROOT, picturePath(shot))));
    const squares = greenSquares(image, 10 * (shot.scale ?? 1));
    expect(squares.length).toBe(shown);
    // One column: the table's Verdict cells, each a glyph of the text's size.
    expect(new Set(squares.map((box) => box.left)).size).toBe(1);
    for (const box of squares)
      expect(box.right - box.left + 1).toBeLessThan(24 * (shot.scale ?? 1));
  });

  it('this machine has the emoji font, and the check says which package brings it when it is hidden', async () => {
    expect(emojiFontProblem()).toBeUndefined();
    const dir = await mkdtemp(join(tmpdir(), 'perf-gate-emoji-'));
    try {
      const env = { ...process.env, FONTCONFIG_FILE: await withoutEmojiFont(dir) };
      expect(emojiFontProblem(env)).toMatch(/apt-get install -y fonts-noto-color-emoji$/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the pixel check finds the ✅ Chromium draws with the font, and none when it draws empty boxes without it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'perf-gate-emoji-'));
    try {
      const withFont = decodePng(await drawEmojiLine(dir, process.env));
      expect(greenSquares(withFont, 20).length).toBe(2);
      const hidden = { ...process.env, FONTCONFIG_FILE: await withoutEmojiFont(dir) };
      const withoutFont = decodePng(await drawEmojiLine(dir, hidden));
      expect(greenSquares(withoutFont, 20)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
