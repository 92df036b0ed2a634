// The experiments list and one experiment: its trials table a page at a time (sorted and filtered by
// the server), the objective plot and parallel coordinates from the trials' summary.

import {
  badge,
  chart,
  enc,
  esc,
  fmt,
  getJson,
  nextFrame,
  onLeave,
  rulesText,
  setCrumbs,
  stream,
  throttle,
  when,
} from './common.js';

const main = document.getElementById('main');
const PAGE = 50;

export async function experimentsView() {
  setCrumbs([]);
  document.title = 'Experiments';
  const { experiments } = await getJson('/api/experiments');
  main.innerHTML = `<h1>Experiments</h1>
    <p><a href="/api/experiments?format=csv">Download CSV</a></p>
    ${
      experiments.length === 0
        ? '<p class="empty">No experiment yet: ask for suggestions or early-stopping rules and it appears here.</p>'
        : `<div class="table-wrap"><table id="experiments"><caption class="skip">Experiments</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Algorithm</th><th scope="col">Objective</th><th scope="col">Trials</th><th scope="col">Updated (UTC)</th></tr></thead>
      <tbody>${experiments
        .map(
          (
            e,
          ) => `<tr data-experiment="${esc(e.name)}"><td><a href="#/experiment/${enc(e.name)}">${esc(e.name)}</a></td>
          <td>${esc(e.algorithm)}</td><td>${esc(e.objectiveType)} ${esc(e.objectiveMetric)}</td>
          <td class="num">${e.trialCount}</td><td>${when(e.updatedAtMs)}</td></tr>`,
        )
        .join('')}</tbody></table></div>`
    }`;
}

const COLUMNS = [
  { key: 'order', label: '#' },
  { key: 'name', label: 'Trial' },
  { key: 'condition', label: 'Status' },
  { key: 'bestObjective', label: 'Best objective' },
];

export async function experimentView(name) {
  setCrumbs([[name]]);
  document.title = `Experiment ${name}`;
  main.innerHTML = `<h1>${esc(name)}</h1><dl class="facts" id="facts"></dl>
    <div class="grid">
      <section><h2 id="objective-title">Objective by trial</h2><div class="chart" id="objective-chart" role="img" aria-labelledby="objective-title"></div></section>
      <section><h2 id="parallel-title">Parameters against the objective</h2><p class="note" id="parallel-note"></p><div class="chart" id="parallel-chart" role="img" aria-labelledby="parallel-title parallel-note"></div></section>
    </div>
    <h2>Trials <span id="trial-count" class="badge"></span> <a href="/api/experiments/${enc(name)}/trials?format=csv">CSV</a></h2>
    <form class="filters" id="trial-filters" role="search" aria-label="Filter the trials">
      <label>Status <select id="filter-status"><option value="">any</option></select></label>
      <label>Name contains <input id="filter-name" type="search" autocomplete="off" /></label>
    </form>
    <div class="table-wrap"><table id="trials"><caption class="skip">Trials of ${esc(name)}</caption><thead></thead><tbody></tbody></table></div>
    <nav class="pager" aria-label="Pages of trials">
      <button type="button" id="page-prev">Previous</button>
      <span id="page-info" role="status" aria-live="polite"></span>
      <button type="button" id="page-next">Next</button>
    </nav>`;
  const objectiveChart = chart(document.getElementById('objective-chart'), {});
  const parallelChart = chart(document.getElementById('parallel-chart'), {});
  const view = { sort: 'order', dir: 'asc', offset: 0, status: '', q: '' };
  let summary;
  let page;
  let pageRequest;

  const pageUrl = () => {
    const q = new URLSearchParams({
      offset: String(view.offset),
      limit: String(PAGE),
      sort: view.sort,
      order: view.dir,
    });
    if (view.status) q.set('status', view.status);
    if (view.q) q.set('q', view.q);
    return `/api/experiments/${enc(name)}/trials?${q}`;
  };

  const renderTable = () => {
    const params = summary.parameters;
    const columns = [...COLUMNS, ...params.map((p) => ({ key: `param:${p}`, label: p }))];
    const table = document.getElementById('trials');
    table.tHead.innerHTML = `<tr>${columns
      .map((c) => {
        const aria = view.sort === c.key ? (view.dir === 'asc' ? 'ascending' : 'descending') : 'none';
        const arrow = view.sort === c.key ? (view.dir === 'asc' ? ' ▲' : ' ▼') : '';
        return `<th scope="col" aria-sort="${aria}"><button type="button" data-sort="${esc(c.key)}">${esc(c.label)}${arrow}</button></th>`;
      })
      .join('')}</tr>`;
    table.tBodies[0].innerHTML = page.trials
      .map((t) => {
        const value = (p) => t.assignments.find((a) => a.name === p)?.value ?? '';
        return `<tr data-trial="${esc(t.name)}" data-condition="${esc(t.condition)}">
        <td class="num">${t.order}</td><td><a href="#/trial/${enc(t.name)}">${esc(t.name)}</a></td>
        <td>${badge(t.condition)}</td><td class="num">${fmt(t.bestObjective)}</td>
        ${params.map((p) => `<td class="num">${esc(value(p))}</td>`).join('')}</tr>`;
      })
      .join('');
    const filtered = view.status !== '' || view.q !== '';
    document.getElementById('trial-count').textContent = String(filtered ? summary.names.length : page.total);
    const shownTo = view.offset + page.trials.length;
    document.getElementById('page-info').textContent =
      page.total === 0
        ? 'no trial'
        : `${view.offset + 1}–${shownTo} of ${page.total}${filtered ? ' (filtered)' : ''}`;
    document.getElementById('page-prev').disabled = view.offset === 0;
    document.getElementById('page-next').disabled = shownTo >= page.total;
  };

  const renderFilters = () => {
    const select = document.getElementById('filter-status');
    const known = [...new Set(summary.conditions.filter((c) => c !== ''))].sort();
    const options = ['', ...known];
    if ([...select.options].map((o) => o.value).join('\n') === options.join('\n')) return;
    select.innerHTML = options
      .map((c) => `<option value="${esc(c)}">${c === '' ? 'any' : esc(c)}</option>`)
      .join('');
    select.value = view.status;
  };

  /** The current page again (sort, filter, paging, or news); a later request wins over an earlier one. */
  const loadPage = async () => {
    pageRequest?.abort();
    const request = new AbortController();
    pageRequest = request;
    const next = await getJson(pageUrl(), request.signal);
    if (request.signal.aborted) return;
    page = next;
    if (summary) renderTable();
  };

  document.getElementById('trials').addEventListener('click', (e) => {
    const key = e.target.closest('button[data-sort]')?.dataset.sort;
    if (!key) return;
    view.dir = view.sort === key && view.dir === 'asc' ? 'desc' : 'asc';
    view.sort = key;
    view.offset = 0;
    loadPage()
      .then(() => document.querySelector(`button[data-sort="${CSS.escape(key)}"]`)?.focus())
      .catch(() => undefined);
  });
  const turn = (delta) => {
    view.offset = Math.max(0, view.offset + delta);
    loadPage().catch(() => undefined);
  };
  document.getElementById('page-prev').addEventListener('click', () => turn(-PAGE));
  document.getElementById('page-next').addEventListener('click', () => turn(PAGE));
  const filters = document.getElementById('trial-filters');
  filters.addEventListener('submit', (e) => e.preventDefault());
  const filter = () => {
    view.status = document.getElementById('filter-status').value;
    view.q = document.getElementById('filter-name').value.trim();
    view.offset = 0;
    loadPage().catch(() => undefined);
  };
  filters.addEventListener('change', filter);
  let typing;
  filters.addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(filter, 250);
  });
  onLeave(() => clearTimeout(typing));

  const renderFacts = () => {
    const e = summary.experiment;
    document.getElementById('facts').innerHTML = `
      <dt>Algorithm</dt><dd>${esc(e.algorithm) || '—'}</dd>
      <dt>Objective</dt><dd>${esc(e.objectiveType)} ${esc(e.objectiveMetric)}</dd>
      <dt>Early stopping</dt><dd id="rules">${rulesText(e.rules)}</dd>`;
  };

  /** The summary again: facts, filters, the table's columns and both charts. */
  const showSummary = async () => {
    renderFacts();
    renderFilters();
    if (page) renderTable();
    // Each chart in a task of its own, after the table is painted.
    await nextFrame();
    const addTrials = timed('objective chart', () => drawObjective(objectiveChart, summary));
    await nextFrame();
    timed('objective points', addTrials);
    await nextFrame();
    timed('parallel chart', () => drawParallel(parallelChart, summary));
  };
  const ignoreAbort = (error) => {
    if (error.name !== 'AbortError') throw error;
  };

  performance.mark('experiment:fetch');
  [summary] = await Promise.all([
    getJson(`/api/experiments/${enc(name)}/summary`),
    loadPage().catch(ignoreAbort),
  ]);
  performance.mark('experiment:table');
  performance.mark('experiment:charts');
  await showSummary();
  // Where the time of showing an experiment goes (read by bench/web.ts).
  performance.measure('experiment: fetch and parse', 'experiment:fetch', 'experiment:table');
  performance.measure('experiment: charts', 'experiment:charts');

  // New trials, observations, statuses and rules: the table's page at most twice a second, the
  // summary (every trial) every two seconds, and both once more a little later (the persistence
  // worker may apply an event after the stream delivered it).
  let trailing;
  const reloadPage = throttle(() => loadPage().catch(() => undefined), 500);
  const reloadSummary = throttle(async () => {
    summary = await getJson(`/api/experiments/${enc(name)}/summary`).catch(() => summary);
    await showSummary();
  }, 2_000);
  const refresh = () => {
    clearTimeout(trailing);
    trailing = setTimeout(() => {
      reloadPage();
      reloadSummary();
    }, 2_500);
    reloadPage();
    reloadSummary();
  };
  onLeave(() => clearTimeout(trailing));
  stream(`/api/experiments/${enc(name)}/stream`, {
    observations: refresh,
    status: refresh,
    rules: refresh,
    trials: refresh,
  });
}

/** Runs `draw` under a measure of its own (read by bench/web.ts). */
function timed(what, draw) {
  const started = performance.now();
  const result = draw();
  performance.measure(`experiment: ${what}`, { start: started, end: performance.now() });
  return result;
}

/**
 * [order, objective] pairs for a scatter; many of them as one flat typed array, which the chart
 * reads without an object per point.
 */
function points(pairs) {
  if (pairs.length <= 2_000) return pairs;
  const flat = new Float64Array(pairs.length * 2);
  for (const [i, [x, y]] of pairs.entries()) {
    flat[2 * i] = x;
    flat[2 * i + 1] = y;
  }
  return flat;
}

/**
 * Each trial's best objective by its order, early-stopped ones apart, and the best so far. Draws
 * all but the trials' points, and returns what adds them (a task of its own: there may be many).
 */
function drawObjective(c, summary) {
  const { experiment, names, conditions, best } = summary;
  const objective = experiment.objectiveMetric || 'objective';
  const minimize = experiment.objectiveType === 'MINIMIZE';
  const trials = [];
  const stopped = [];
  /** Each series' trials (indexes into the summary), for the tooltip. */
  const of = [[], []];
  // The best so far only where it changes (and at the end): a step line needs no more.
  const bestSoFar = [];
  let top = null;
  for (let i = 0; i < names.length; i++) {
    const v = best[i];
    if (v === null) continue;
    const early = conditions[i] === 'EARLYSTOPPED';
    (early ? stopped : trials).push([i + 1, v]);
    of[early ? 1 : 0].push(i);
    if (top === null || (minimize ? v < top : v > top)) {
      top = v;
      bestSoFar.push([i + 1, v]);
    }
  }
  if (top !== null && bestSoFar.at(-1)[0] !== names.length) bestSoFar.push([names.length, top]);
  // Large mode (one path for all symbols) whatever the count; never for no point (ECharts 6 throws).
  const scatter = (pairs) => ({
    type: 'scatter',
    large: pairs.length > 0,
    largeThreshold: 0,
    dimensions: ['trial', objective],
    data: points(pairs),
  });
  c.setOption(
    {
      tooltip: {
        trigger: 'item',
        formatter: (p) =>
          p.seriesType === 'scatter'
            ? `${esc(names[of[p.seriesIndex][p.dataIndex]])}<br>${esc(objective)}: ${fmt(p.value[1])}`
            : `best so far: ${fmt(p.value[1])}`,
      },
      legend: { top: 0 },
      grid: { left: 50, right: 16, top: 32, bottom: 40 },
      xAxis: { type: 'value', name: 'trial', nameLocation: 'middle', nameGap: 24, minInterval: 1 },
      yAxis: { type: 'value', name: objective, scale: true },
      dataZoom: [{ type: 'inside' }],
      series: [
        { ...scatter([]), name: 'trial', symbolSize: 7 },
        {
          ...scatter(stopped),
          name: 'early stopped',
          symbol: 'diamond',
          symbolSize: 10,
          itemStyle: { color: '#b42318' },
        },
        {
          name: 'best so far',
          type: 'line',
          step: 'end',
          showSymbol: false,
          data: bestSoFar,
          lineStyle: { width: 1.5 },
        },
      ],
    },
    { notMerge: true },
  );
  return () => c.setOption({ series: [{ ...scatter(trials), name: 'trial', symbolSize: 7 }] });
}

/** Lines drawn at most: past that many, lines stop telling trials apart and cost a frame each. */
const MAX_LINES = 2_000;

/**
 * The trials with an objective that the parallel coordinates draw: all of them up to MAX_LINES;
 * past that, the best half of MAX_LINES and the others evenly spaced in trial order.
 */
function linesOf(best, maximize) {
  const all = [];
  for (let t = 0; t < best.length; t++) if (best[t] !== null) all.push(t);
  if (all.length <= MAX_LINES) return { chosen: all, total: all.length };
  const ranked = [...all].sort((a, b) => (maximize ? best[b] - best[a] : best[a] - best[b]) || a - b);
  const top = new Set(ranked.slice(0, MAX_LINES / 2));
  const rest = all.filter((t) => !top.has(t));
  const step = rest.length / (MAX_LINES / 2);
  const sample = Array.from({ length: MAX_LINES / 2 }, (_, k) => rest[Math.floor(k * step)]);
  return { chosen: [...top, ...sample].sort((a, b) => a - b), total: all.length };
}

/** One line per trial with an objective (or a summary of them), across its parameters and the objective. */
function drawParallel(c, summary) {
  const { experiment, parameters, values, best } = summary;
  const objective = experiment.objectiveMetric || 'objective';
  const numeric = values.map((column) => column.every((v) => v === '' || Number.isFinite(Number(v))));
  const axes = parameters.map((p, i) =>
    numeric[i]
      ? { dim: i, name: p, type: 'value', scale: true }
      : { dim: i, name: p, type: 'category', data: [...new Set(values[i])] },
  );
  axes.push({ dim: parameters.length, name: objective, type: 'value', scale: true });
  const { chosen, total } = linesOf(best, experiment.objectiveType === 'MAXIMIZE');
  document.getElementById('parallel-note').textContent =
    chosen.length < total
      ? `${chosen.length.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} trials: the best ${(MAX_LINES / 2).toLocaleString('en-US')} and others evenly spread`
      : '';
  const lines = [];
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const t of chosen) {
    const v = best[t];
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
    const line = parameters.map((_, i) => (numeric[i] ? Number(values[i][t]) : values[i][t]));
    line.push(v);
    lines.push(line);
  }
  c.setOption(
    {
      parallelAxis: axes,
      parallel: { left: 40, right: 60, top: 40, bottom: 30 },
      visualMap: lines.length
        ? {
            show: false,
            dimension: parameters.length,
            min: lo,
            max: hi === lo ? lo + 1 : hi,
            inRange: { color: ['#d73027', '#fee08b', '#1a9850'] },
          }
        : undefined,
      series: [
        {
          type: 'parallel',
          lineStyle: { width: 1, opacity: 0.6 },
          // Many trials are drawn a part per frame: the page stays responsive while they come.
          progressive: 250,
          progressiveThreshold: 500,
          data: lines,
        },
      ],
    },
    { notMerge: true },
  );
}
