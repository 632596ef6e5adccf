// The page a PR comment's picture is taken of: the comment's HTML (GitHub's own Markdown
// renderer, cmark-gfm, run by scripts/pictures.mjs) in a GitHub-like comment box, with its
// ```mermaid blocks drawn by Mermaid as GitHub draws them. The page writes its height into
// its title and sets `document.body.dataset.drawn` once the charts are drawn, which is when
// the picture may be taken. test/report/comment-in-browser.test.ts looks at comments on it too.

const STYLES = (width: number) => `
  body { margin: 0; padding: 16px; background: #fff; width: ${width}px; box-sizing: border-box;
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

/** The flags scripts/pictures.mjs runs cmark-gfm with: GitHub's extensions, raw HTML kept. */
export const CMARK_GFM_ARGS = [
  '--unsafe',
  '-e',
  'table',
  '-e',
  'strikethrough',
  '-e',
  'autolink',
  '-e',
  'tagfilter',
] as const;

/** The page around a comment's HTML `body`, `width` CSS pixels wide; `mermaid` is the script's URL. */
export function commentPage(body: string, mermaid: string, width: number): string {
  return `<!doctype html><html><head><meta charset="utf-8"><style>${STYLES(width)}</style></head>
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
    document.body.dataset.drawn = 'true';
  });
</script>
</body></html>`;
}
