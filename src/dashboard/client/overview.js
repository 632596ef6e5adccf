// The top of the dashboard page (inlined before dashboard.js, runs in the browser): what
// needs attention first. Open regressions, one row each (gate, environment, the commit
// range from the last good to the first bad night with its compare link, how many series
// it moved, the worst change, its issue), opening to its series and the bisect command;
// the series that stopped reporting (when any did); then the change points of the last 30
// days. Every series named links to its chart (#series=…) beside its environment. Also
// each series' status for the status filter and the order of the cards. Text from the
// data goes in with textContent; links only below the checked bases or made by page-data.ts.
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

  function environmentCell(seriesIndex) {
    return el(
      'td',
      { class: 'environment' },
      data.environments[data.series[seriesIndex].environment],
    );
  }

  /** A range's end: its short sha, linked when page-data.ts made the link, its subject on hover. */
  function rangeEnd(row, href, end) {
    const sha = row[1];
    const subject = row[7] >= 0 ? data.subjects[row[7]] : '';
    const text = sha ? sha.slice(0, 7) : 'no commit';
    const node = href
      ? el('a', { class: 'commit ' + end, href, rel: 'noopener noreferrer' }, text)
      : el('span', { class: 'commit ' + end }, text);
    node.title =
      (end === 'good' ? 'last good: ' : 'first bad: ') + text + (subject ? ' ' + subject : '');
    return node;
  }

  /** Where the culprit is, as far as the page knows, and the bisect command for the range. */
  function culprit(regression) {
    const good = data.records[regression.lastGood];
    const bad = data.records[regression.since];
    if (good[1] && good[1] === bad[1]) {
      const where = 'both nights measured commit ' + bad[1].slice(0, 7);
      return { where: where + ': the change came from outside the code', command: '' };
    }
    const count = regression.commits;
    const where =
      count === undefined
        ? 'the culprit is somewhere in the commits between them'
        : count === 1
          ? 'the culprit is this one commit'
          : 'the culprit is somewhere in these ' + count + ' commits';
    return { where, command: regression.bisect || '' };
  }

  /** "the culprit is somewhere in these 3 commits; bisect with `…`": the range's hover text. */
  function culpritText(regression) {
    const { where, command } = culprit(regression);
    return command ? where + '; bisect with `' + command + '`' : where;
  }

  function rangeCell(regression) {
    const range = regression.range || {};
    const good = data.records[regression.lastGood];
    const bad = data.records[regression.since];
    const cell = el('td', { class: 'range' });
    cell.title = culpritText(regression);
    cell.append(rangeEnd(good, range.good, 'good'), ' → ', rangeEnd(bad, range.bad, 'bad'));
    if (range.compare) {
      cell.append(
        ' ',
        el('a', { class: 'compare', href: range.compare, rel: 'noopener noreferrer' }, 'compare'),
      );
    }
    const size =
      regression.commits === undefined
        ? ''
        : regression.commits + ' commit' + (regression.commits === 1 ? '' : 's') + ' · ';
    cell.append(el('div', { class: 'range-note' }, size + 'first bad night ' + day(bad[0])));
    return cell;
  }

  function issueCell(regression) {
    const issue = el('td', { class: 'issue' });
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
    return issue;
  }

  /** The worst change: its size (interval on hover) and its series. */
  function worstCell(regression) {
    const [seriesIndex, changeIndex] = regression.changes[0];
    const series = data.series[seriesIndex];
    const change = series.changes[changeIndex];
    const cell = el('td', { class: 'worst' });
    const size = el(
      'span',
      { class: 'change change-' + kindOf(series, change) },
      percent(change.change),
    );
    size.title = '95% interval ' + percent(change.low) + ' to ' + percent(change.high);
    cell.append(
      size,
      ' ',
      el(
        'span',
        { class: 'worst-series' },
        data.benchmarks[series.benchmark] + ' · ' + series.metric,
      ),
    );
    return cell;
  }

  /** The opened row: the bisect line and one row per series it moved, the worst first. */
  function regressionPanel(regression, id) {
    const tr = el('tr', { class: 'regression-series', id });
    tr.hidden = true;
    const cell = el('td', { colspan: '6' });
    const { where, command } = culprit(regression);
    const note = el('p', { class: 'culprit' }, where.charAt(0).toUpperCase() + where.slice(1));
    if (command) note.append('; bisect with ', el('code', {}, command));
    const rows = regression.changes.map(([seriesIndex, changeIndex]) => {
      const series = data.series[seriesIndex];
      const row = el('tr', { class: 'regression-series-row' });
      row.append(
        seriesCell(seriesIndex),
        environmentCell(seriesIndex),
        changeCell(series, series.changes[changeIndex]),
      );
      return row;
    });
    cell.append(note, table(['series', 'environment', 'change'], rows, ''));
    tr.append(cell);
    return tr;
  }

  function regressionRows() {
    return data.regressions.flatMap((regression, index) => {
      const id = 'regression-' + index;
      const tr = el('tr', { class: 'open-regression', 'data-regression': regression.id });
      const panel = regressionPanel(regression, id);
      const toggle = el(
        'button',
        { type: 'button', class: 'toggle', 'aria-expanded': 'false', 'aria-controls': id },
        '▸',
      );
      toggle.title = 'show its series';
      const setOpen = (open) => {
        panel.hidden = !open;
        toggle.setAttribute('aria-expanded', String(open));
        toggle.textContent = open ? '▾' : '▸';
        tr.classList.toggle('opened', open);
      };
      // A click anywhere on the row opens it, except on its links.
      tr.addEventListener('click', (event) => {
        if (event.target.closest('a')) return;
        setOpen(panel.hidden);
      });
      const gate = el('td', { class: 'gate' });
      gate.append(toggle, ' ' + data.gates[regression.gate]);
      const environments = regression.environments.map((e) => data.environments[e]).join(', ');
      const count = regression.changes.length;
      tr.append(
        gate,
        el('td', { class: 'environment' }, environments),
        rangeCell(regression),
        el('td', { class: 'series-count' }, count + ' series'),
        worstCell(regression),
        issueCell(regression),
      );
      return [tr, panel];
    });
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
        environmentCell(seriesIndex),
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
        environmentCell(seriesIndex),
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
      el('h2', {}, 'Open regressions (' + data.regressions.length + ')'),
      table(
        ['gate', 'environment', 'last good → first bad', 'series', 'worst change', 'issue'],
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
        ['series', 'environment', 'change', 'date', 'commit', 'kind'],
        recentRows(),
        'No change point beyond its threshold in the last 30 days.',
      ),
    );
  }

  return { status, render, percent, kindOf, commitLink, day };
};
