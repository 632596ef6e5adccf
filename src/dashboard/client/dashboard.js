// The dashboard page's own script (inlined into the page after overview.js, runs in the
// browser). It reads the data from <script id="dashboard-data">, puts what needs attention
// first (overview.js), builds the filters (kept in the URL's #fragment, so a link reopens
// the same selection or one chart) and one card per series (beside a capacity series, its
// newest latency–load curve), and draws a card's chart with uPlot only when the card
// scrolls into view, so that the first chart appears at once however many series there
// are. Charts follow their card's width; markers outside the plot (after a zoom) are not
// drawn. Every text from the data goes in with textContent; the only links are runs,
// commits and issues below the checked repository URL.
/* global uPlot, document, window, history, location, URLSearchParams, IntersectionObserver, ResizeObserver,
   performance, requestAnimationFrame */
(function () {
  'use strict';
  const data = JSON.parse(document.getElementById('dashboard-data').textContent);
  const VERDICTS = { p: 'pass', r: 'regression', n: 'no baseline', e: 'error' };
  const STATUSES = {
    attention: 'open regression',
    missing: 'stopped reporting',
    changed: 'recent change',
    steady: 'steady',
  };
  const state = { drawn: 0, firstChartMs: null, charts: new Map() };
  window.__dashboard = state;

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  const overview = window.perfGateOverview(data, el);
  const { percent, kindOf, commitLink } = overview;

  function time(seconds) {
    return new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ');
  }

  function runUrl(row) {
    const run = row[2];
    return data.runBase && run > 0 ? data.runBase + String(run) : null;
  }

  function runsAt(series, i) {
    return typeof series.n === 'number' ? series.n : series.n[i];
  }

  // ── the selection, kept in the URL's fragment ────────────────────────────────────
  const filters = document.getElementById('filters');
  const choices = {
    status: Object.keys(STATUSES),
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
    values.forEach((value) =>
      select.append(el('option', { value: value }, name === 'status' ? STATUSES[value] : value)),
    );
    select.addEventListener('change', () => {
      selected.series = '';
      writeFragment();
      applyFilters();
    });
    label.append(select);
    filters.append(label);
    selects[name] = select;
  }
  const selected = { series: '' };

  function readFragment() {
    const params = new URLSearchParams(location.hash.replace(/^#/, ''));
    for (const [name, select] of Object.entries(selects)) {
      const value = params.get(name) || '';
      select.value = choices[name].includes(value) ? value : '';
    }
    const series = params.get('series') || '';
    selected.series = data.series.some((s) => s.id === series) ? series : '';
  }

  function writeFragment() {
    const params = new URLSearchParams();
    for (const [name, select] of Object.entries(selects)) {
      if (select.value) params.set(name, select.value);
    }
    if (selected.series) params.set('series', selected.series);
    const fragment = params.toString();
    const url = location.href.replace(/#.*$/, '') + (fragment ? '#' + fragment : '');
    history.replaceState(null, '', url);
  }

  // ── charts follow their card's width ─────────────────────────────────────────────
  const sized = new Map();
  const resizer = new ResizeObserver((entries) => {
    for (const entry of entries) {
      const chart = sized.get(entry.target);
      const width = plotWidth(entry.target);
      if (chart && Math.abs(chart.width - width) >= 1) {
        chart.setSize({ width: width, height: chart.height });
      }
    }
  });

  function plotWidth(plot) {
    return Math.max(200, Math.floor(plot.clientWidth) || 600);
  }

  /** A uPlot chart in `plot`, resized with it. */
  function chartIn(plot, options, values) {
    const chart = new uPlot({ ...options, width: plotWidth(plot) }, values, plot);
    sized.set(plot, chart);
    resizer.observe(plot);
    return chart;
  }

  // ── cards: what needs attention first ────────────────────────────────────────────
  const main = document.getElementById('charts');
  const RANK = { attention: 0, missing: 1, changed: 2, steady: 3 };
  const order = data.series
    .map((_, index) => index)
    .sort((a, b) => RANK[overview.status[a]] - RANK[overview.status[b]] || a - b);
  const cards = order.map((index) => seriesCard(data.series[index], index));

  function seriesCard(series, index) {
    const card = el('article', { class: 'card', 'data-series': String(index) });
    card.dataset.gate = data.gates[series.gate];
    card.dataset.benchmark = data.benchmarks[series.benchmark];
    card.dataset.metric = series.metric;
    card.dataset.environment = data.environments[series.environment];
    card.dataset.status = overview.status[index];
    card.dataset.id = series.id;
    const head = el('header', { class: 'card-head' });
    head.append(
      el('h2', {}, data.benchmarks[series.benchmark] + ' · ' + series.metric),
      el('a', { class: 'chart-link', href: '#series=' + encodeURIComponent(series.id) }, 'link'),
    );
    if (overview.status[index] !== 'steady') {
      const status = overview.status[index];
      head.prepend(el('span', { class: 'status status-' + status }, STATUSES[status]));
    }
    const meta = el('p', { class: 'meta' }, metaText(series));
    const plot = el('div', { class: 'plot' });
    const records = el('details', { class: 'records' });
    records.append(el('summary', {}, 'Records'));
    records.addEventListener('toggle', () => {
      if (records.open && records.childElementCount === 1) records.append(recordTable(series));
    });
    card.append(head, meta, plot, legendOf(series), records);
    main.append(card);
    return card;
  }

  function metaText(series) {
    return (
      data.gates[series.gate] +
      ' · ' +
      data.environments[series.environment] +
      ' · ' +
      series.v.length +
      ' records · ' +
      (series.better > 0 ? 'higher' : 'lower') +
      ' is better' +
      (series.threshold !== null && !series.ab
        ? ' · threshold ' + (series.threshold * 100).toFixed(1).replace(/\.0$/, '') + '%'
        : '') +
      (series.unit ? ' · ' + series.unit : '')
    );
  }

  // An A/B series holds paired changes and their intervals, not runs.
  function legendOf(series) {
    const legend = el('p', { class: 'legend' });
    legend.append(
      el(
        'span',
        { class: 'key key-mean' },
        series.ab ? 'change, head vs base' : 'mean of the runs',
      ),
      el('span', { class: 'key key-spread' }, series.ab ? '95% interval' : 'lowest–highest run'),
    );
    if (!series.ab && series.threshold !== null) {
      legend.append(el('span', { class: 'key key-threshold' }, 'threshold around the baseline'));
    }
    legend.append(
      el('span', { class: 'key key-env' }, 'software changed'),
      el('span', { class: 'key key-change-regression' }, 'regression'),
      el('span', { class: 'key key-change-improvement' }, 'improvement'),
      el('span', { class: 'key key-change-quiet' }, 'inside threshold'),
      el('span', { class: 'key key-regressed' }, 'judged a regression'),
      el('span', { class: 'key key-accepted' }, 'accepted'),
    );
    return legend;
  }

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
      const visible = selected.series ? card.dataset.id === selected.series : matches(card);
      card.hidden = !visible;
      card.classList.toggle('selected', card.dataset.id === selected.series);
      if (visible) shown += 1;
    }
    for (const card of capacityCards) {
      card.hidden = selected.series ? true : !matches(card);
    }
    const summary = document.getElementById('summary');
    summary.replaceChildren(shown + ' of ' + cards.length + ' series shown');
    if (selected.series) {
      const all = el('a', { href: '#' }, 'show all');
      summary.append(' · ', all);
      const card = cards.find((c) => c.dataset.id === selected.series);
      if (card) card.scrollIntoView({ block: 'start' });
    }
  }

  window.addEventListener('hashchange', () => {
    readFragment();
    applyFilters();
  });
  overview.render(document.getElementById('overview'));
  readFragment();
  applyFilters();

  // ── one series' chart ────────────────────────────────────────────────────────────
  function draw(card) {
    if (state.charts.has(card)) return;
    const series = data.series[Number(card.dataset.series)];
    const rows = series.r.map((r) => data.records[r]);
    const x = rows.map((row) => row[0]);
    const plot = card.querySelector('.plot');
    const tip = el('div', { class: 'tooltip', role: 'status' });
    tip.hidden = true;
    plot.append(tip);
    const chart = chartIn(
      plot,
      {
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
        hooks: {
          draw: [(u) => placeMarkers(u, series, rows)],
          setCursor: [(u) => showTip(u, tip, series, rows)],
        },
      },
      [x, series.v, series.hi, series.lo],
    );
    chart.over.addEventListener('mouseleave', () => (tip.hidden = true));
    pickOnTap(chart, (index) => openRecord(chart, series, index));
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

  // ── a tap or click opens the record of the point nearest it ──────────────────────
  // The mouse events a browser makes from a tap carry whole CSS pixels; the pointer event
  // before them keeps the touch's fraction of a pixel. A year of nights on a phone is
  // about 0.65 px a night, so uPlot's cursor, which follows the mouse events, lands a night
  // off in about half the taps: the record opened is the one nearest the pointer's own x.
  function pickOnTap(u, open) {
    let pointer = null;
    u.over.addEventListener('pointerup', (e) => (pointer = { x: e.clientX, y: e.clientY }));
    u.over.addEventListener('click', (e) => {
      const same =
        pointer && Math.abs(pointer.x - e.clientX) <= 1 && Math.abs(pointer.y - e.clientY) <= 1;
      const index = nearestIndex(u, same ? pointer.x : e.clientX);
      pointer = null;
      if (index !== null) open(index);
    });
  }

  function nearestIndex(u, clientX) {
    if (u.data[0].length === 0) return null;
    return u.valToIdx(u.posToVal(clientX - u.over.getBoundingClientRect().left, 'x'));
  }

  // One record is open at a time, its point under a cross-hair on its chart.
  let picked = null;

  function openRecord(u, series, i) {
    const before = picked;
    picked = { chart: u, index: i };
    if (before && before.chart !== u) placeCrosshair(before.chart);
    // uPlot's own cursor (and so the tooltip) moves to the same point.
    u.setCursor({ left: u.valToPos(u.data[0][i], 'x'), top: u.valToPos(u.data[1][i], 'y') });
    placeCrosshair(u);
    showDetails(series, i, {
      step: (by) => openRecord(u, series, i + by),
      close: () => {
        picked = null;
        placeCrosshair(u);
        document.body.style.paddingBottom = '';
      },
    });
    keepAbovePanel(u);
  }

  // On a phone the panel fills the lower part of the screen: the chart moves up above it
  // (as far as the page scrolls), so the cross-hair and the next taps stay in sight.
  function keepAbovePanel(u) {
    const panel = document.getElementById('details');
    // Room below the last card, so that it too can move above the panel.
    document.body.style.paddingBottom = panel.offsetHeight + 16 + 'px';
    const panelTop = panel.getBoundingClientRect().top;
    const plot = u.over.getBoundingClientRect();
    const by = Math.min(plot.bottom + 8 - panelTop, plot.top);
    if (by > 0) window.scrollBy(0, by);
  }

  function placeCrosshair(u) {
    u.over.querySelectorAll('.crosshair').forEach((m) => m.remove());
    if (!picked || picked.chart !== u) return;
    const left = u.valToPos(u.data[0][picked.index], 'x');
    const top = u.valToPos(u.data[1][picked.index], 'y');
    if (left < 0 || left > u.over.clientWidth || top < 0 || top > u.over.clientHeight) return;
    const vertical = el('div', { class: 'marker crosshair marker-crosshair-x' });
    vertical.style.left = left + 'px';
    const horizontal = el('div', { class: 'marker crosshair marker-crosshair-y' });
    horizontal.style.top = top + 'px';
    const ring = el('div', { class: 'marker crosshair marker-crosshair', title: 'open record' });
    ring.style.left = left + 'px';
    ring.style.top = top + 'px';
    u.over.append(vertical, horizontal, ring);
  }

  // What the point under the cursor is: value, runs, date, commit and its subject.
  function showTip(u, tip, series, rows) {
    const i = u.cursor.idx;
    if (i === null || i === undefined || u.cursor.left < 0) {
      tip.hidden = true;
      return;
    }
    const row = rows[i];
    const subject = row[7] >= 0 ? data.subjects[row[7]] : '';
    const runs = runsAt(series, i);
    const lines = [
      withUnit(series, String(series.v[i])) + (series.ab ? ' change' : ' mean'),
      (series.ab ? '95% interval ' : runs + (runs === 1 ? ' run' : ' runs') + ', ') +
        withUnit(series, series.lo[i] + ' – ' + series.hi[i]),
      time(row[0]) + ' UTC · ' + VERDICTS[row[3]] + (row[5] ? ', accepted' : ''),
      row[1] ? 'commit ' + row[1].slice(0, 7) + (subject ? ' ' + subject : '') : 'no commit',
    ];
    const change = series.changes.find((c) => c.at === i);
    if (change) lines.push('change point: ' + change.label);
    if (i > 0 && rows[i - 1][4] !== row[4]) {
      lines.push(
        'software: ' +
          (data.versions[rows[i - 1][4]] || 'unknown') +
          ' → ' +
          (data.versions[row[4]] || 'unknown'),
      );
    }
    tip.replaceChildren(...lines.map((line) => el('div', {}, line)));
    tip.hidden = false;
    // Beside the cursor, inside the plot: never past the card's edge.
    const width = tip.offsetWidth;
    const left = u.cursor.left + u.over.offsetLeft;
    const room = tip.parentElement.clientWidth;
    const right = left + 12 + width <= room ? left + 12 : left - width - 12;
    tip.style.left = Math.max(0, Math.min(right, room - width)) + 'px';
    tip.style.top = Math.max(0, u.cursor.top + u.over.offsetTop - tip.offsetHeight - 8) + 'px';
  }

  // Markers are elements over the chart (not canvas strokes), so they can be named and
  // found (the tooltip tells what the point under the cursor has): the threshold band, software changes, change points (coloured by
  // direction, quiet inside the threshold), regressions and acceptances. Only what lies
  // inside the plot is drawn: after a zoom the rest would spill over the page.
  function placeMarkers(u, series, rows) {
    const layer = u.over;
    layer.querySelectorAll('.marker').forEach((m) => m.remove());
    const width = layer.clientWidth;
    const height = layer.clientHeight;
    const at = (i) => u.valToPos(rows[i][0], 'x');
    const inside = (left) => left >= 0 && left <= width;
    thresholdBand(u, series, rows, width, height);
    for (let i = 1; i < rows.length; i += 1) {
      if (rows[i][4] === rows[i - 1][4] || !inside(at(i))) continue;
      const label =
        (data.versions[rows[i - 1][4]] || 'unknown') +
        ' → ' +
        (data.versions[rows[i][4]] || 'unknown');
      addLine(layer, 'marker marker-env', at(i), label);
    }
    for (const change of series.changes) {
      if (!inside(at(change.at))) continue;
      const kind = series.ab ? 'quiet' : kindOf(series, change);
      const line = addLine(
        layer,
        'marker marker-change change-' + kind,
        at(change.at),
        'change point: ' + change.label + (change.status ? ', ' + change.status : ''),
      );
      if (kind !== 'quiet') {
        line.append(el('span', { class: 'change-label' }, percent(change.change)));
        if (at(change.at) > width * 0.8) line.classList.add('label-left');
      }
    }
    rows.forEach((row, i) => {
      const left = at(i);
      const y = u.valToPos(series.v[i], 'y');
      if (!inside(left) || y < 0 || y > height) return;
      if (row[3] === 'r') addDot(layer, 'marker marker-regressed', left, y, 'judged a regression');
      if (row[5] === 1) addDot(layer, 'marker marker-accepted', left, y, 'accepted');
    });
    placeCrosshair(u);
  }

  // The band of ± the threshold around the level the baseline has now: the newest level
  // (after the newest change point beyond the threshold), or the one before an open
  // regression, which the gate keeps out of the baseline.
  function thresholdBand(u, series, rows, width, height) {
    if (series.ab || series.threshold === null || series.v.length === 0) return;
    const steps = series.changes.filter((c) => !c.quiet);
    let start = 0;
    let level;
    const newestStep = steps[steps.length - 1];
    if (newestStep && newestStep.status === 'open') {
      const previous = steps[steps.length - 2];
      start = previous ? previous.at : 0;
      level = newestStep.before;
    } else if (newestStep) {
      start = newestStep.at;
      level = newestStep.after;
    } else {
      level = series.v.reduce((s, v) => s + v, 0) / series.v.length;
    }
    const left = Math.max(0, u.valToPos(rows[start][0], 'x'));
    const right = Math.min(width, u.valToPos(rows[rows.length - 1][0], 'x'));
    const top = Math.max(0, u.valToPos(level * (1 + series.threshold), 'y'));
    const bottom = Math.min(height, u.valToPos(level * (1 - series.threshold), 'y'));
    if (right <= left || bottom <= top) return;
    const band = el('div', {
      class: 'marker marker-threshold',
      title:
        'threshold ±' +
        (series.threshold * 100).toFixed(1).replace(/\.0$/, '') +
        '% around the baseline level ' +
        withUnit(series, String(Number(level.toPrecision(5)))),
    });
    band.style.left = left + 'px';
    band.style.width = right - left + 'px';
    band.style.top = top + 'px';
    band.style.height = bottom - top + 'px';
    u.over.append(band);
  }

  function addLine(layer, cls, left, title) {
    const line = el('div', { class: cls, title: title });
    line.style.left = left + 'px';
    layer.append(line);
    return line;
  }

  function addDot(layer, cls, left, top, title) {
    const dot = el('div', { class: cls, title: title });
    dot.style.left = left + 'px';
    dot.style.top = top + 'px';
    layer.append(dot);
  }

  // ── a record's details and the records table ─────────────────────────────────────
  const FACTS = ['time (UTC)', 'mean', 'runs', 'verdict', 'commit', 'software', 'links'];

  /** What one record holds, in the order of FACTS: a text or a node each. */
  function recordFacts(series, i) {
    const row = data.records[series.r[i]];
    const commit = document.createDocumentFragment();
    commit.append(commitLink(row));
    const subject = row[7] >= 0 ? data.subjects[row[7]] : '';
    if (subject) commit.append(' ' + subject);
    const links = document.createDocumentFragment();
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
    return [
      time(row[0]),
      withUnit(series, String(series.v[i])),
      withUnit(series, series.lo[i] + ' – ' + series.hi[i]),
      VERDICTS[row[3]] + (row[5] ? ', accepted' : ''),
      commit,
      data.versions[row[4]] || '',
      links,
    ];
  }

  function recordCells(series, i) {
    return recordFacts(series, i).map((fact) => {
      const cell = el('td');
      cell.append(fact);
      return cell;
    });
  }

  // A figure or range in the series' display unit, so the runs read like the mean.
  function withUnit(series, text) {
    return text + (series.unit ? ' ' + series.unit : '');
  }

  function recordTable(series) {
    const wrap = el('div', { class: 'table-scroll' });
    const table = el('table', { class: 'record-table' });
    const head = el('tr');
    FACTS.forEach((h) => head.append(el('th', {}, h)));
    table.append(head);
    for (let i = series.v.length - 1; i >= 0; i -= 1) {
      const tr = el('tr');
      tr.append(...recordCells(series, i));
      table.append(tr);
    }
    wrap.append(table);
    return wrap;
  }

  // The open record as a list of label and value, which wraps on a phone (a table row
  // would run past the screen's edge), with steps to the records either side: a finger
  // covers dozens of a year's nights.
  function showDetails(series, i, controls) {
    const aside = document.getElementById('details');
    const list = el('dl', { class: 'record-facts' });
    recordFacts(series, i).forEach((fact, k) => {
      const value = el('dd');
      value.append(fact);
      list.append(el('dt', {}, FACTS[k]), value);
    });
    const nav = el('div', { class: 'details-nav' });
    const button = (text, action, enabled) => {
      const b = el('button', { type: 'button' }, text);
      b.disabled = !enabled;
      b.addEventListener('click', action);
      nav.append(b);
    };
    button('‹ earlier', () => controls.step(-1), i > 0);
    button('later ›', () => controls.step(1), i < series.v.length - 1);
    button(
      'close',
      () => {
        aside.hidden = true;
        controls.close();
      },
      true,
    );
    aside.replaceChildren(
      el('h2', {}, data.benchmarks[series.benchmark] + ' · ' + series.metric),
      list,
      nav,
    );
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
          time(chart.at) +
          (chart.commit ? ' · ' + chart.commit.slice(0, 7) : '') +
          ' · ' +
          capacityText(chart),
      ),
    );
    const series = cards.find(
      (c) =>
        c.dataset.gate === chart.gate &&
        c.dataset.benchmark === chart.benchmark &&
        c.dataset.metric === 'capacity' &&
        c.dataset.environment === chart.environment,
    );
    card.dataset.status = series ? series.dataset.status : 'steady';
    if (series) series.after(card);
    else main.append(card);
    chart.objectives.forEach((objective, index) => drawObjective(card, chart, index));
    state.capacityDrawn = (state.capacityDrawn || 0) + 1;
    return card;
  }

  function capacityText(chart) {
    if (!chart.capacity) return 'the SLO failed at the lowest load: capacity below it';
    const mark = chart.marks[0];
    const setter =
      mark && !mark.atLeast ? ', set by ' + chart.objectives[mark.objective].metric : '';
    return capacityValue(chart, chart.capacity) + setter;
  }

  /** "capacity 7.31 requests/s", or "capacity ≥ 8 requests/s (the SLO held at every load)". */
  function capacityValue(chart, capacity) {
    const unit = chart.unit ? ' ' + chart.unit : '';
    return capacity.atLeast
      ? 'capacity ≥ ' + short(capacity.value) + unit + ' (the SLO held at every load)'
      : 'capacity ' + short(capacity.value) + unit;
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

  // One objective: the curve of its figure against load, the SLO line and, on the chart
  // of the objective that set it, each side's capacity as a mark on the load axis
  // (elements over the chart, like the series' markers, so they can be named and found).
  function drawObjective(card, chart, index) {
    const objective = chart.objectives[index];
    const marks = chart.marks.filter((m) => m.objective === index);
    const plot = el('div', { class: 'plot' });
    const legend = el('p', { class: 'legend' });
    legend.append(
      el('span', { class: 'key key-mean' }, objective.metric + ', mean of the runs'),
      el('span', { class: 'key key-slo' }, sloText(objective)),
    );
    if (marks.length > 0) {
      legend.append(el('span', { class: 'key key-capacity' }, 'capacity, on the load axis'));
    } else if (chart.marks.length > 0 && !chart.marks[0].atLeast) {
      const setter = chart.objectives[chart.marks[0].objective].metric;
      legend.append(el('span', { class: 'capacity-elsewhere' }, 'capacity set by ' + setter));
    }
    card.append(plot, legend);
    const limit = objective.limit;
    chartIn(
      plot,
      {
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
        hooks: { draw: [(u) => placeCapacityMarks(u, chart, objective, marks)] },
      },
      [objective.loads, objective.values],
    );
  }

  function placeCapacityMarks(u, chart, objective, marks) {
    const layer = u.over;
    layer.querySelectorAll('.marker').forEach((m) => m.remove());
    const sloTop = u.valToPos(objective.limit, 'y');
    if (sloTop >= 0 && sloTop <= layer.clientHeight) {
      const slo = el('div', { class: 'marker marker-slo', title: sloText(objective) });
      slo.style.top = sloTop + 'px';
      layer.append(slo);
    }
    for (const mark of marks) {
      const left = u.valToPos(mark.value, 'x');
      if (left < 0 || left > layer.clientWidth) continue;
      layer.append(capacityMark(chart, objective, mark, left, layer.clientWidth));
    }
  }

  // A mark standing on the load axis at the capacity, its figure beside it; the title says
  // why this objective's chart has it.
  function capacityMark(chart, objective, mark, left, width) {
    const why = mark.atLeast
      ? sloText(objective) + ' came closest to failing at the highest load'
      : sloText(objective) + ' stops holding here first';
    const side = mark.side ? mark.side + ': ' : '';
    // The axis names the unit; the title says it all.
    const text = side + 'capacity ' + (mark.atLeast ? '≥ ' : '') + short(mark.value);
    const full = side + capacityValue(chart, mark).split(' (')[0];
    const node = el('div', { class: 'marker capacity-mark', title: full + ' · ' + why });
    node.dataset.value = String(mark.value);
    node.style.left = left + 'px';
    const label = el('span', { class: 'capacity-mark-label' }, text);
    // Near the right edge, the label goes to the left of the mark.
    if (left > width * 0.6) node.classList.add('capacity-mark-left');
    node.append(label);
    return node;
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
    chartIn(
      plot,
      {
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
          {
            label: "P50, mean of the runs' P50",
            stroke: '#1f6feb',
            width: 1.5,
            points: { show: true },
          },
          {
            label: "P99, mean of the runs' P99",
            stroke: '#d1242f',
            width: 1.5,
            points: { show: true },
          },
        ],
      },
      [sweep.throughput, sweep.p50, sweep.p99],
    );
  }

  // ── sweeps: latency distributions per rate, and a user's speed against the server's ──
  const RATE_COLOURS = ['#1f6feb', '#2da44e', '#bf8700', '#d1242f', '#8250df', '#0a7b83'];
  const LATENCY_NAMES = { ttft: 'TTFT', itl: 'ITL' };
  const distributions = data.distributions || [];
  if (distributions.length > 0) {
    sweeps.append(el('h2', {}, 'Sweeps: latency distributions per rate'));
  }
  for (const sweep of distributions) sweeps.append(distributionCard(sweep));

  function distributionCard(sweep) {
    const card = el('article', { class: 'card sweep sweep-distributions' });
    card.dataset.sweep = sweep.sweep;
    card.append(el('h3', {}, sweep.gate + ' · ' + sweep.sweep + ': latency CDF per rate'));
    card.append(
      el(
        'p',
        { class: 'meta' },
        "Share of requests at or below each latency, all runs of each variant's newest night " +
          'pooled (newest ' +
          time(Math.max.apply(null, sweep.at)) +
          ' UTC). A line further right is slower; a long flat top is a tail.',
      ),
    );
    for (const chart of sweep.charts) drawCdf(card, sweep, chart);
    if (sweep.pareto) drawPareto(card, sweep);
    return card;
  }

  function drawCdf(card, sweep, chart) {
    const name = LATENCY_NAMES[chart.metric] || chart.metric;
    const plot = el('div', { class: 'plot cdf', 'data-metric': chart.metric });
    card.append(el('h4', {}, name + ' distribution'), plot);
    chartIn(
      plot,
      {
        height: 220,
        // The latencies measured, not the decades around them.
        scales: {
          x: { time: false, distr: 3, range: (u, min, max) => [min, max] },
          y: { range: [0, 1] },
        },
        axes: [
          { label: name + ' (ms, log scale)', splits: (u, i, min, max) => logTicks(min, max) },
          { label: 'share of requests', size: 60, values: (u, ticks) => ticks.map(percent0) },
        ],
        series: [{ label: name + ' ms' }].concat(
          sweep.variants.map((variant, i) => ({
            label: variant,
            stroke: RATE_COLOURS[i % RATE_COLOURS.length],
            width: 1.5,
            value: (u, v) => (v === null || v === undefined ? '—' : percent0(v)),
          })),
        ),
      },
      [chart.x].concat(chart.shares),
    );
  }

  /** 1, 2 and 5 times the powers of ten between min and max: round latencies to read. */
  function logTicks(min, max) {
    const ticks = [];
    for (let power = Math.floor(Math.log10(min)); Math.pow(10, power) <= max; power += 1) {
      for (const step of [1, 2, 5]) {
        const tick = step * Math.pow(10, power);
        if (tick >= min && tick <= max) ticks.push(tick);
      }
    }
    return ticks;
  }

  function percent0(share) {
    return Math.round(share * 100) + '%';
  }

  // vLLM's plot_pareto: how fast one request's tokens come against how many the server
  // gives out; each rate a point, the knee where more load stops paying for the server.
  function drawPareto(card, sweep) {
    const points = sweep.variants
      .map((variant, i) => [sweep.pareto.perInstance[i], sweep.pareto.perUser[i], variant])
      .filter((p) => p[0] !== null && p[1] !== null)
      .sort((a, b) => a[0] - b[0]);
    if (points.length === 0) return;
    const plot = el('div', { class: 'plot pareto' });
    card.append(el('h4', {}, 'Tokens/s per user against tokens/s of the server'), plot);
    card.append(
      el(
        'p',
        { class: 'meta' },
        'Per user: 1000 / median TPOT. ' +
          points
            .map((p) => p[2] + ': ' + short(p[1]) + ' per user at ' + short(p[0]) + ' per server')
            .join(' · '),
      ),
    );
    chartIn(
      plot,
      {
        height: 220,
        scales: { x: { time: false } },
        axes: [
          { label: 'output tokens/s of the server' },
          { label: 'tokens/s per user', size: 60 },
        ],
        series: [
          { label: 'tokens/s of the server' },
          { label: 'tokens/s per user', stroke: '#8250df', width: 1.5, points: { show: true } },
        ],
      },
      [points.map((p) => p[0]), points.map((p) => p[1])],
    );
  }
})();
