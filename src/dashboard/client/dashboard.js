// The dashboard page's own script (inlined into the page, runs in the browser). It reads
// the data from <script id="dashboard-data">, builds the filters and one card per series
// (beside a capacity series, its newest latency–load curve), and draws a card's chart
// with uPlot only when the card scrolls into view, so that the first chart appears at
// once however many series there are. Every text from the data
// goes in with textContent; the only links are runs below the checked repository URL.
/* global uPlot, document, window, IntersectionObserver, performance, requestAnimationFrame */
(function () {
  'use strict';
  const data = JSON.parse(document.getElementById('dashboard-data').textContent);
  const VERDICTS = { p: 'pass', r: 'regression', n: 'no baseline', e: 'error' };
  const state = { drawn: 0, firstChartMs: null, charts: new Map() };
  window.__dashboard = state;

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function day(seconds) {
    return new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ');
  }

  function runUrl(row) {
    const run = row[2];
    return data.runBase && run > 0 ? data.runBase + String(run) : null;
  }

  // ── filters ──────────────────────────────────────────────────────────────────────
  const filters = document.getElementById('filters');
  const choices = {
    gate: data.gates,
    benchmark: data.benchmarks,
    metric: [...new Set(data.series.map((s) => s.metric))].sort(),
    environment: data.environments,
  };
  const selects = {};
  for (const [name, values] of Object.entries(choices)) {
    const label = el('label', {}, name + ' ');
    const select = el('select', { name: name, id: 'filter-' + name });
    select.append(el('option', { value: '' }, 'all'));
    values.forEach((value) => select.append(el('option', { value: value }, value)));
    select.addEventListener('change', applyFilters);
    label.append(select);
    filters.append(label);
    selects[name] = select;
  }

  // ── cards ────────────────────────────────────────────────────────────────────────
  const main = document.getElementById('charts');
  const cards = data.series.map((series, index) => {
    const card = el('article', { class: 'card', 'data-series': String(index) });
    card.dataset.gate = data.gates[series.gate];
    card.dataset.benchmark = data.benchmarks[series.benchmark];
    card.dataset.metric = series.metric;
    card.dataset.environment = data.environments[series.environment];
    const title = el('h2', {}, data.benchmarks[series.benchmark] + ' · ' + series.metric);
    const meta = el(
      'p',
      { class: 'meta' },
      data.gates[series.gate] +
        ' · ' +
        data.environments[series.environment] +
        ' · ' +
        series.v.length +
        ' records · ' +
        (series.better > 0 ? 'higher' : 'lower') +
        ' is better' +
        (series.unit ? ' · ' + series.unit : ''),
    );
    const plot = el('div', { class: 'plot' });
    const legend = el('p', { class: 'legend' });
    // An A/B series holds paired changes and their intervals, not runs.
    legend.append(
      el(
        'span',
        { class: 'key key-mean' },
        series.ab ? 'change, head vs base' : 'mean of the runs',
      ),
      el('span', { class: 'key key-spread' }, series.ab ? '95% interval' : 'lowest–highest run'),
      el('span', { class: 'key key-env' }, 'software changed'),
      el('span', { class: 'key key-change' }, 'change point'),
      el('span', { class: 'key key-regressed' }, 'regression'),
      el('span', { class: 'key key-accepted' }, 'accepted'),
    );
    const records = el('details', { class: 'records' });
    records.append(el('summary', {}, 'Records'));
    records.addEventListener('toggle', () => {
      if (records.open && records.childElementCount === 1) records.append(recordTable(series));
    });
    card.append(title, meta, plot, legend, records);
    main.append(card);
    return card;
  });

  const capacityCards = data.capacities.map(capacityCard);

  const observer = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        observer.unobserve(entry.target);
        draw(entry.target);
      }
    },
    { rootMargin: '200px' },
  );
  cards.forEach((card) => observer.observe(card));

  function applyFilters() {
    let shown = 0;
    const matches = (card) =>
      Object.entries(selects).every(
        ([name, select]) => select.value === '' || card.dataset[name] === select.value,
      );
    for (const card of cards) {
      const visible = matches(card);
      card.hidden = !visible;
      if (visible) shown += 1;
    }
    for (const card of capacityCards) card.hidden = !matches(card);
    document.getElementById('summary').textContent =
      shown + ' of ' + cards.length + ' series shown';
  }
  applyFilters();

  // ── one chart ────────────────────────────────────────────────────────────────────
  function draw(card) {
    if (state.charts.has(card)) return;
    const series = data.series[Number(card.dataset.series)];
    const rows = series.r.map((r) => data.records[r]);
    const x = rows.map((row) => row[0]);
    const plot = card.querySelector('.plot');
    const width = Math.max(300, plot.clientWidth || 600);
    const chart = new uPlot(
      {
        width: width,
        height: 220,
        legend: { show: false },
        cursor: { points: { show: true } },
        scales: { x: { time: true } },
        axes: [{}, { label: series.unit, size: 60 }],
        series: [
          {},
          { label: series.metric, stroke: '#1f6feb', width: 1.5, points: { show: x.length <= 60 } },
          { label: 'highest run', stroke: 'rgba(31,111,235,0.25)', points: { show: false } },
          { label: 'lowest run', stroke: 'rgba(31,111,235,0.25)', points: { show: false } },
        ],
        bands: [{ series: [2, 3], fill: 'rgba(31,111,235,0.12)' }],
        hooks: { draw: [(u) => placeMarkers(u, series, rows)] },
      },
      [x, series.v, series.hi, series.lo],
      plot,
    );
    chart.over.addEventListener('click', () => {
      const index = chart.cursor.idx;
      if (index !== null && index !== undefined) showDetails(series, index);
    });
    state.charts.set(card, chart);
    card.classList.add('drawn');
    state.drawn += 1;
    if (state.firstChartMs === null) {
      // Drawn means painted: the frame after uPlot's synchronous first draw.
      requestAnimationFrame(() => {
        if (state.firstChartMs === null) state.firstChartMs = performance.now();
      });
    }
  }

  // Markers are elements over the chart (not canvas strokes), so they can be named,
  // hovered and found: software changes, change points, regressions and acceptances.
  function placeMarkers(u, series, rows) {
    const layer = u.over;
    layer.querySelectorAll('.marker').forEach((m) => m.remove());
    const at = (i) => u.valToPos(rows[i][0], 'x');
    for (let i = 1; i < rows.length; i += 1) {
      if (rows[i][4] !== rows[i - 1][4]) {
        const label =
          (data.versions[rows[i - 1][4]] || 'unknown') +
          ' → ' +
          (data.versions[rows[i][4]] || 'unknown');
        addLine(layer, 'marker marker-env', at(i), label);
      }
    }
    for (const [i, label] of series.changes) {
      addLine(layer, 'marker marker-change', at(i), 'change point: ' + label);
    }
    rows.forEach((row, i) => {
      const y = u.valToPos(series.v[i], 'y');
      if (row[3] === 'r') addDot(layer, 'marker marker-regressed', at(i), y, 'regression');
      if (row[5] === 1) addDot(layer, 'marker marker-accepted', at(i), y, 'accepted');
    });
  }

  function addLine(layer, cls, left, title) {
    const line = el('div', { class: cls, title: title });
    line.style.left = left + 'px';
    layer.append(line);
  }

  function addDot(layer, cls, left, top, title) {
    const dot = el('div', { class: cls, title: title });
    dot.style.left = left + 'px';
    dot.style.top = top + 'px';
    layer.append(dot);
  }

  // ── a record's details and the records table ─────────────────────────────────────
  function recordCells(series, i) {
    const row = data.records[series.r[i]];
    const cells = [
      el('td', {}, day(row[0])),
      el('td', {}, withUnit(series, String(series.v[i]))),
      el('td', {}, withUnit(series, series.lo[i] + ' – ' + series.hi[i])),
      el('td', {}, VERDICTS[row[3]] + (row[5] ? ', accepted' : '')),
      el('td', { class: 'commit' }, row[1].slice(0, 7)),
      el('td', {}, data.versions[row[4]] || ''),
    ];
    const links = el('td', {});
    const url = runUrl(row);
    if (url) {
      links.append(el('a', { href: url, rel: 'noopener noreferrer', target: '_blank' }, 'run'));
      if (row[6]) {
        links.append(' · ');
        links.append(
          el(
            'a',
            { href: url + '#artifacts', rel: 'noopener noreferrer', target: '_blank' },
            'profile (NTFF)',
          ),
        );
      }
    }
    cells.push(links);
    return cells;
  }

  // A figure or range in the series' display unit, so the runs read like the mean.
  function withUnit(series, text) {
    return text + (series.unit ? ' ' + series.unit : '');
  }

  function recordTable(series) {
    const table = el('table', { class: 'record-table' });
    const head = el('tr');
    ['time (UTC)', 'mean', 'runs', 'verdict', 'commit', 'software', 'links'].forEach((h) =>
      head.append(el('th', {}, h)),
    );
    table.append(head);
    for (let i = series.v.length - 1; i >= 0; i -= 1) {
      const tr = el('tr');
      tr.append(...recordCells(series, i));
      table.append(tr);
    }
    return table;
  }

  function showDetails(series, i) {
    const aside = document.getElementById('details');
    aside.replaceChildren();
    aside.append(el('h2', {}, data.benchmarks[series.benchmark] + ' · ' + series.metric));
    const table = el('table', { class: 'record-table' });
    const tr = el('tr');
    tr.append(...recordCells(series, i));
    table.append(tr);
    const close = el('button', { type: 'button' }, 'close');
    close.addEventListener('click', () => (aside.hidden = true));
    aside.append(table, close);
    aside.hidden = false;
  }

  // ── capacity under an SLO: the newest curve, beside the capacity's series ─────────
  function capacityCard(chart) {
    const card = el('article', { class: 'card capacity-curve' });
    card.dataset.gate = chart.gate;
    card.dataset.benchmark = chart.benchmark;
    card.dataset.metric = 'capacity';
    card.dataset.environment = chart.environment;
    card.append(el('h2', {}, chart.benchmark + ' · latency against load'));
    card.append(
      el(
        'p',
        { class: 'meta' },
        chart.gate +
          ' · ' +
          chart.environment +
          ' · newest record ' +
          day(chart.at) +
          (chart.commit ? ' · ' + chart.commit.slice(0, 7) : '') +
          ' · ' +
          capacityText(chart),
      ),
    );
    const series = [...main.querySelectorAll('article.card[data-series]')].find(
      (c) =>
        c.dataset.gate === chart.gate &&
        c.dataset.benchmark === chart.benchmark &&
        c.dataset.metric === 'capacity' &&
        c.dataset.environment === chart.environment,
    );
    if (series) series.after(card);
    else main.append(card);
    for (const objective of chart.objectives) drawObjective(card, chart, objective);
    state.capacityDrawn = (state.capacityDrawn || 0) + 1;
    return card;
  }

  function capacityText(chart) {
    const unit = chart.unit ? ' ' + chart.unit : '';
    if (!chart.capacity) return 'the SLO failed at the lowest load: capacity below it';
    return chart.capacity.atLeast
      ? 'capacity ≥ ' + short(chart.capacity.value) + unit + ' (the SLO held at every load)'
      : 'capacity ' + short(chart.capacity.value) + unit;
  }

  function short(value) {
    return String(Number(value.toPrecision(4)));
  }

  function sloText(objective) {
    const unit = objective.unit ? ' ' + objective.unit : '';
    return (
      'SLO ' +
      objective.metric +
      (objective.holds === 'at-least' ? ' ≥ ' : ' ≤ ') +
      short(objective.limit) +
      unit
    );
  }

  // One objective: the curve of its figure against load, the SLO line and the capacity
  // (elements over the chart, like the series' markers, so they can be named and found).
  function drawObjective(card, chart, objective) {
    const plot = el('div', { class: 'plot' });
    const legend = el('p', { class: 'legend' });
    legend.append(
      el('span', { class: 'key key-mean' }, objective.metric + ', mean of the runs'),
      el('span', { class: 'key key-slo' }, sloText(objective)),
      el('span', { class: 'key key-capacity' }, 'capacity'),
    );
    card.append(plot, legend);
    const limit = objective.limit;
    new uPlot(
      {
        width: Math.max(300, plot.clientWidth || 600),
        height: 200,
        legend: { show: false },
        scales: {
          x: { time: false },
          // The SLO line stays in view even where the curve is far from it.
          y: {
            range: (u, min, max) => {
              const low = Math.min(min, limit);
              const high = Math.max(max, limit);
              const pad = (high - low) * 0.08 || Math.abs(high) * 0.1 || 1;
              return [low >= 0 ? Math.max(0, low - pad) : low - pad, high + pad];
            },
          },
        },
        axes: [
          { label: chart.load + (chart.unit ? ' (' + chart.unit + ')' : '') },
          { label: objective.unit, size: 60 },
        ],
        series: [
          { label: chart.load },
          { label: objective.metric, stroke: '#1f6feb', width: 1.5, points: { show: true } },
        ],
        hooks: { draw: [(u) => placeCapacityMarks(u, chart, objective)] },
      },
      [objective.loads, objective.values],
      plot,
    );
  }

  function placeCapacityMarks(u, chart, objective) {
    const layer = u.over;
    layer.querySelectorAll('.marker').forEach((m) => m.remove());
    const slo = el('div', { class: 'marker marker-slo', title: sloText(objective) });
    slo.style.top = u.valToPos(objective.limit, 'y') + 'px';
    layer.append(slo);
    if (!chart.capacity) return;
    const left = u.valToPos(chart.capacity.value, 'x');
    const title = capacityText(chart);
    addLine(layer, 'marker marker-capacity', left, title);
    addDot(layer, 'marker marker-capacity-point', left, u.valToPos(objective.limit, 'y'), title);
    const label = el(
      'div',
      { class: 'marker marker-capacity-label', title: title },
      (chart.capacity.atLeast ? '≥ ' : '') + short(chart.capacity.value),
    );
    label.style.left = left + 'px';
    // Near the right edge, the label goes to the left of the line.
    if (left > u.over.clientWidth * 0.85) label.classList.add('marker-label-left');
    layer.append(label);
  }

  // ── sweeps: latency against throughput ──────────────────────────────────────────
  const sweeps = document.getElementById('sweeps');
  if (data.sweeps.length > 0) sweeps.append(el('h2', {}, 'Sweeps: latency against throughput'));
  for (const sweep of data.sweeps) {
    const card = el('article', { class: 'card sweep' });
    card.append(el('h3', {}, sweep.gate + ' · ' + sweep.sweep));
    const plot = el('div', { class: 'plot' });
    card.append(plot);
    card.append(
      el('p', { class: 'meta' }, 'variants, by throughput: ' + sweep.variants.join(', ')),
    );
    sweeps.append(card);
    new uPlot(
      {
        width: Math.max(300, plot.clientWidth || 600),
        height: 240,
        scales: { x: { time: false } },
        axes: [
          { label: 'throughput' + (sweep.throughputUnit ? ' (' + sweep.throughputUnit + ')' : '') },
          {
            label: 'latency' + (sweep.latencyUnit ? ' (' + sweep.latencyUnit + ')' : ''),
            size: 60,
          },
        ],
        series: [
          { label: 'throughput' },
          { label: 'P50', stroke: '#1f6feb', width: 1.5, points: { show: true } },
          { label: 'P99', stroke: '#d1242f', width: 1.5, points: { show: true } },
        ],
      },
      [sweep.throughput, sweep.p50, sweep.p99],
      plot,
    );
  }
})();
