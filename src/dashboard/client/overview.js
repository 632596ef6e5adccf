// The top of the dashboard page (inlined before dashboard.js, runs in the browser): what
// needs attention first. Open regressions (benchmark, metric, size, since which commit,
// its issue), the series that stopped reporting (when any did), then the change points of the last 30 days, each row linking to its chart
// (#series=…). Also each series' status for the status filter and the order of the
// cards. Text from the data goes in with textContent; links only below the checked bases.
/* global window */
window.perfGateOverview = function (data, el) {
  'use strict';
  const RECENT_SECONDS = 30 * 24 * 3600;
  const newest = data.records.reduce((max, row) => Math.max(max, row[0]), 0);

  // ── figures as the page writes them ────────────────────────────────────────────
  function percent(change) {
    const sign = change >= 0 ? '+' : '−';
    return sign + Math.abs(change * 100).toFixed(1) + '%';
  }

  function isRegression(series, change) {
    return change.change * series.better < 0;
  }

  /** `regression`, `improvement` or `quiet`: the class of a change's line and label. */
  function kindOf(series, change) {
    if (change.quiet) return 'quiet';
    return isRegression(series, change) ? 'regression' : 'improvement';
  }

  function day(seconds) {
    return new Date(seconds * 1000).toISOString().slice(0, 10);
  }

  function commitLink(row) {
    const sha = row[1];
    if (!sha) return el('span', { class: 'commit' }, 'no commit');
    const subject = row[7] >= 0 ? data.subjects[row[7]] : '';
    const text = sha.slice(0, 7);
    const node = data.commitBase
      ? el('a', { class: 'commit', href: data.commitBase + sha, rel: 'noopener noreferrer' }, text)
      : el('span', { class: 'commit' }, text);
    if (subject) node.title = subject;
    return node;
  }

  /** The series' name, linking to its chart alone (#series=…). */
  function seriesCell(seriesIndex) {
    const series = data.series[seriesIndex];
    const cell = el('td', { class: 'series-name' });
    cell.dataset.benchmark = data.benchmarks[series.benchmark];
    cell.dataset.metric = series.metric;
    cell.append(
      el(
        'a',
        { href: '#series=' + encodeURIComponent(series.id) },
        data.benchmarks[series.benchmark] + ' · ' + series.metric,
      ),
    );
    return cell;
  }

  function changeCell(series, change) {
    const cell = el('td', { class: 'change change-' + kindOf(series, change) });
    cell.textContent = percent(change.change);
    cell.title = '95% interval ' + percent(change.low) + ' to ' + percent(change.high);
    return cell;
  }

  // ── each series' status ──────────────────────────────────────────────────────────
  const attention = new Set();
  for (const regression of data.regressions) {
    for (const [seriesIndex] of regression.changes) attention.add(seriesIndex);
  }
  function isRecent(series, change) {
    return newest - data.records[series.r[change.at]][0] <= RECENT_SECONDS;
  }
  const missing = new Set((data.missing || []).map(([seriesIndex]) => seriesIndex));
  const status = data.series.map((series, index) => {
    if (attention.has(index)) return 'attention';
    if (missing.has(index)) return 'missing';
    return series.changes.some((c) => !c.quiet && isRecent(series, c)) ? 'changed' : 'steady';
  });

  // ── the tables ───────────────────────────────────────────────────────────────────
  function table(headings, rows, empty) {
    if (rows.length === 0) return el('p', { class: 'overview-empty' }, empty);
    const wrap = el('div', { class: 'table-scroll' });
    const node = el('table', { class: 'overview-table' });
    const head = el('tr');
    headings.forEach((h) => head.append(el('th', {}, h)));
    node.append(head, ...rows);
    wrap.append(node);
    return wrap;
  }

  function regressionRows() {
    return data.regressions.flatMap((regression) =>
      regression.changes.map(([seriesIndex, changeIndex]) => {
        const series = data.series[seriesIndex];
        const change = series.changes[changeIndex];
        const since = data.records[regression.since];
        const tr = el('tr', { class: 'open-regression', 'data-regression': regression.id });
        const sinceCell = el('td');
        sinceCell.append(commitLink(since), ' ' + day(since[0]));
        const issue = el('td');
        if (regression.issue && data.issueBase) {
          issue.append(
            el(
              'a',
              { href: data.issueBase + regression.issue, rel: 'noopener noreferrer' },
              '#' + regression.issue,
            ),
          );
        } else {
          issue.textContent = '—';
        }
        tr.append(seriesCell(seriesIndex), changeCell(series, change), sinceCell, issue);
        return tr;
      }),
    );
  }

  /** One row per series that stopped reporting: where, last seen, nights missed. */
  function missingRows() {
    return (data.missing || []).map(([seriesIndex, nights]) => {
      const series = data.series[seriesIndex];
      const last = data.records[series.r[series.r.length - 1]];
      const tr = el('tr', { class: 'missing-series' });
      const seen = el('td');
      seen.append(commitLink(last), ' ' + day(last[0]));
      tr.append(
        seriesCell(seriesIndex),
        el('td', {}, data.environments[series.environment]),
        seen,
        el('td', { class: 'nights-missed' }, String(nights)),
      );
      return tr;
    });
  }

  function recentRows() {
    const listed = new Set(data.regressions.flatMap((r) => r.changes.map(([s, c]) => s + ':' + c)));
    const found = [];
    data.series.forEach((series, seriesIndex) =>
      series.changes.forEach((change, changeIndex) => {
        if (change.quiet || !isRecent(series, change)) return;
        if (listed.has(seriesIndex + ':' + changeIndex)) return;
        found.push({ series, seriesIndex, change });
      }),
    );
    const at = (f) => data.records[f.series.r[f.change.at]][0];
    found.sort((a, b) => at(b) - at(a) || a.seriesIndex - b.seriesIndex);
    return found.map(({ series, seriesIndex, change }) => {
      const row = data.records[series.r[change.at]];
      const tr = el('tr', { class: 'recent-change' });
      const commit = el('td');
      commit.append(commitLink(row));
      const what = isRegression(series, change)
        ? 'regression' + (change.status && change.status !== 'open' ? ', ' + change.status : '')
        : 'improvement';
      const before = change.at > 0 ? data.records[series.r[change.at - 1]] : row;
      const software = row[4] !== before[4] ? ', software changed' : '';
      tr.append(
        seriesCell(seriesIndex),
        changeCell(series, change),
        el('td', {}, day(row[0])),
        commit,
        el('td', {}, what + software),
      );
      return tr;
    });
  }

  function render(section) {
    const open = regressionRows();
    section.append(
      el('h2', {}, 'Open regressions (' + open.length + ')'),
      table(
        ['series', 'change', 'since', 'issue'],
        open,
        'No open regression beyond its threshold.',
      ),
    );
    const stopped = missingRows();
    // Only news is listed: no heading while every series reports.
    if (stopped.length > 0) {
      section.append(
        el('h2', {}, 'Stopped reporting (' + stopped.length + ')'),
        table(['series', 'environment', 'last seen', 'nights missed'], stopped, ''),
      );
    }
    section.append(
      el('h2', {}, 'Change points of the last 30 days'),
      table(
        ['series', 'change', 'date', 'commit', 'kind'],
        recentRows(),
        'No change point beyond its threshold in the last 30 days.',
      ),
    );
  }

  return { status, render, percent, kindOf, commitLink, day };
};
