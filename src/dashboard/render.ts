// The dashboard as one self-contained HTML file: the charting library (uPlot), the page's
// own script and styles and the data are all inside it, read from node_modules and
// src/dashboard/client/ when the tool is bundled, so that viewing it fetches nothing.

import uplotScript from 'uplot/dist/uPlot.iife.min.js?raw';
import uplotStyles from 'uplot/dist/uPlot.min.css?raw';
import pageScript from './client/dashboard.js?raw';
import overviewScript from './client/overview.js?raw';
import pageStyles from './client/dashboard.css?raw';
import { pageData, type DashboardInput } from './page-data.js';

/** The page's file name in the output folder. */
export const DASHBOARD_FILE = 'index.html';

/** The dashboard page for `input`; pure. */
export function renderDashboard(input: DashboardInput): string {
  const data = pageData(input);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'none'">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(input.title)}</title>
<style>${inlineText(uplotStyles, 'style')}</style>
<style>${inlineText(pageStyles, 'style')}</style>
</head>
<body>
<header>
<h1>${escapeHtml(input.title)}</h1>
<p class="source">${escapeHtml(input.source)} · generated ${escapeHtml(input.generatedAt)}</p>
</header>
<section id="overview" class="overview" aria-label="What needs attention"></section>
<form id="filters" class="filters" aria-label="Filters"></form>
<p id="summary" class="summary"></p>
<main id="charts" class="charts"></main>
<section id="sweeps" class="sweeps"></section>
<aside id="details" class="details" hidden></aside>
<script type="application/json" id="dashboard-data">${jsonForScript(data)}</script>
<script>${inlineText(uplotScript, 'script')}</script>
<script>${inlineText(overviewScript, 'script')}
${inlineText(pageScript, 'script')}</script>
</body>
</html>
`;
}

/** Text for HTML: `&`, `<`, `>`, quotes escaped. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/**
 * JSON that cannot end its <script> element or start a comment: every `<` is written
 * `\u003c` (a JSON string escape), and the two line separators JavaScript once refused.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Library code inlined as is: it must not hold its own closing tag. */
function inlineText(text: string, tag: 'script' | 'style'): string {
  if (new RegExp(`</${tag}`, 'i').test(text)) {
    throw new Error(`cannot inline a ${tag} that contains </${tag}`);
  }
  return text;
}
