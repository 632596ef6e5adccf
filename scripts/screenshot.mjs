// Makes docs/images/pr-comment.png, the README's picture of the PR comment: runs the demo
// (the real gate on the simulator), renders the comment.md it wrote with GitHub's own
// Markdown renderer (cmark-gfm) and a GitHub-like stylesheet, draws its ```mermaid charts
// with Mermaid (node_modules/mermaid, as GitHub does), and takes it with headless Chromium.
// Needs `npm ci` and Debian's `chromium` and `cmark-gfm`:
//   apt-get install -y chromium cmark-gfm fonts-noto-color-emoji
// Usage: node scripts/screenshot.mjs [comment.md] [out.png]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CHROMIUM, CHROMIUM_FLAGS } from './chromium.mjs';
import { COMMENT_WIDTH, commentPage } from './comment-page.mjs';

const root = resolve(import.meta.dirname, '..');
const commentPath = process.argv[2] ?? join(root, 'demo-output', 'comment.md');
const pngPath = resolve(process.argv[3] ?? join(root, 'docs', 'images', 'pr-comment.png'));
const WIDTH = COMMENT_WIDTH;
const SCALE = 2; // device pixels per CSS pixel: sharp on high-density screens

if (process.argv[2] === undefined) {
  const demo = spawnSync(process.execPath, [join(root, 'scripts', 'demo.mjs')], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (demo.status !== 0) throw new Error(`the demo failed (exit code ${demo.status})`);
}

// The demo's absolute paths name this machine's clone; show them from the clone's root.
const markdown = readFileSync(commentPath, 'utf8').replaceAll(`${root}/`, '');
const html = commentPage(markdown);

const work = mkdtempSync(join(tmpdir(), 'perf-gate-screenshot-'));
try {
  const page = join(work, 'comment.html');
  writeFileSync(page, html);
  const chromium = (extra) =>
    execFileSync(
      CHROMIUM,
      [
        ...CHROMIUM_FLAGS,
        '--hide-scrollbars',
        `--user-data-dir=${join(work, 'profile')}`,
        ...extra,
        pathToFileURL(page).href,
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
    );
  // First pass: the page's height, which the script above wrote into the title.
  // The virtual time budget lets Mermaid finish drawing before the page is read.
  const dom = chromium([`--window-size=${WIDTH},800`, '--virtual-time-budget=10000', '--dump-dom']);
  const height = Number(/<title>(\d+)<\/title>/.exec(dom)?.[1]);
  if (!(height > 0)) throw new Error('could not measure the rendered comment');
  chromium([
    `--window-size=${WIDTH},${height}`,
    `--force-device-scale-factor=${SCALE}`,
    '--virtual-time-budget=10000',
    `--screenshot=${pngPath}`,
  ]);
  console.log(`${pngPath}: ${WIDTH}×${height} CSS px at ${SCALE}x`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
