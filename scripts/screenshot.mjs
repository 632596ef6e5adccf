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

const root = resolve(import.meta.dirname, '..');
const commentPath = process.argv[2] ?? join(root, 'demo-output', 'comment.md');
const pngPath = resolve(process.argv[3] ?? join(root, 'docs', 'images', 'pr-comment.png'));
const WIDTH = 1012; // GitHub's comment column on a wide screen, in CSS pixels
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
const body = execFileSync(
  'cmark-gfm',
  ['--unsafe', '-e', 'table', '-e', 'strikethrough', '-e', 'autolink', '-e', 'tagfilter'],
  { input: markdown, encoding: 'utf8' },
);

const css = `
  body { margin: 0; padding: 16px; background: #fff; width: ${WIDTH}px; box-sizing: border-box;
    font: 14px/1.5 -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial,
      sans-serif, "Noto Color Emoji"; color: #1f2328; }
  .comment { border: 1px solid #d1d9e0; border-radius: 6px; }
  .header { background: #f6f8fa; border-bottom: 1px solid #d1d9e0; padding: 8px 16px;
    border-radius: 6px 6px 0 0; color: #59636e; }
  .header b { color: #1f2328; }
  .bot { display: inline-block; border: 1px solid #d1d9e0; border-radius: 2em; padding: 0 7px;
    font-size: 12px; margin-left: 4px; }
  .markdown-body { padding: 16px; }
  .markdown-body > :first-child { margin-top: 0; }
  h2 { font-size: 1.5em; border-bottom: 1px solid #d1d9e0b3; padding-bottom: .3em;
    margin: 24px 0 16px; font-weight: 600; }
  h3 { font-size: 1.25em; margin: 24px 0 16px; font-weight: 600; }
  h4 { font-size: 1em; margin: 24px 0 16px; font-weight: 600; }
  p, ul, table, details { margin: 0 0 16px; }
  ul { padding-left: 2em; }
  code { font: 85%/1 ui-monospace, SFMono-Regular, "DejaVu Sans Mono", Menlo, monospace;
    background: #818b981f; border-radius: 6px; padding: .2em .4em; }
  table { border-collapse: collapse; display: block; width: max-content; max-width: 100%;
    overflow: auto; font-variant-numeric: tabular-nums; }
  th, td { border: 1px solid #d1d9e0; padding: 6px 13px; }
  th { font-weight: 600; }
  tr:nth-child(2n) { background: #f6f8fa; }
  summary { cursor: pointer; }
  a { color: #0969da; text-decoration: none; }
`;
// GitHub draws a ```mermaid block as a chart; so does the page, with the same library.
const mermaid = pathToFileURL(join(root, 'node_modules', 'mermaid', 'dist', 'mermaid.min.js')).href;
const html = `<!doctype html><html><head><meta charset="utf-8"><style>${css}</style></head>
<body><div class="comment">
<div class="header"><b>github-actions</b> <span class="bot">bot</span> commented</div>
<div class="markdown-body">${body}</div></div>
<script src="${mermaid}"></script>
<script>
  for (const code of document.querySelectorAll('pre[lang="mermaid"] > code, code.language-mermaid')) {
    const chart = document.createElement('div');
    chart.className = 'mermaid';
    chart.textContent = code.textContent;
    code.closest('pre').replaceWith(chart);
  }
  mermaid.initialize({ startOnLoad: false, theme: 'default' });
  mermaid.run().finally(() => {
    document.title = String(Math.ceil(document.body.scrollHeight));
  });
</script>
</body></html>`;

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
