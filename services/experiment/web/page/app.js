// The experiments page: plain ES module, no build step. Charts by Apache ECharts (served from its npm
// package as /vendor/echarts.min.js). Routes: #/ (experiments), #/experiment/NAME, #/trial/NAME.
// Data from the read endpoints; live updates from the Server-Sent Events streams.

import { decimate } from './decimate.js';

const echarts = globalThis.echarts;
const main = document.getElementById('main');
const crumbs = document.getElementById('crumbs');
const live = document.getElementById('live');

/** Everything the current view opened (streams, charts, timers), closed when the route changes. */
const cleanup = [];
const onLeave = (fn) => cleanup.push(fn);

const esc = (value) =>
  String(value ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c],
  );
const enc = encodeURIComponent;
const fmt = (n) =>
  n === null || n === undefined
    ? ''
    : Number(n)
        .toPrecision(6)
        .replace(/\.?0+$/, '');
const when = (ms) => (ms ? new Date(ms).toISOString().replace('T', ' ').slice(0, 19) : '');

async function getJson(path) {
  const res = await fetch(path, { headers: { accept: 'application/json' } });
  const body = await res.json();
  if (!res.ok) throw new Error(body?.error?.message ?? `${res.status}`);
  return body;
}

function setCrumbs(items) {
  crumbs.innerHTML = [`<li><a href="#/">Experiments</a></li>`]
    .concat(
      items.map(([label, href]) =>
        href ? `<li><a href="${href}">${esc(label)}</a></li>` : `<li aria-current="page">${esc(label)}</li>`,
      ),
    )
    .join('');
}

/** Options every chart has, also after a `notMerge` update (which would bring animations back). */
const BASE = { aria: { enabled: true }, animation: false };

function chart(el, option) {
  const c = echarts.init(el, null, { renderer: 'canvas' });
  const setOption = c.setOption.bind(c);
  c.setOption = (next, opts) => setOption({ ...BASE, ...next }, opts);
  c.setOption(option);
  const resize = () => c.resize();
  window.addEventListener('resize', resize);
  onLeave(() => {
    window.removeEventListener('resize', resize);
    c.dispose();
  });
  return c;
}

/** An EventSource whose events call `on[type]`; shows whether the page is live. */
function stream(path, on) {
  const source = new EventSource(path);
  source.onopen = () => {
    live.textContent = 'live';
    live.classList.add('on');
  };
  source.onerror = () => {
    live.textContent = 'reconnecting…';
    live.classList.remove('on');
  };
  for (const [type, handler] of Object.entries(on))
    source.addEventListener(type, (e) => handler(JSON.parse(e.data)));
  onLeave(() => {
    source.close();
    live.textContent = '';
    live.classList.remove('on');
  });
}

const badge = (condition) =>
  condition
    ? `<span class="badge ${esc(condition)}">${esc(condition)}</span>`
    : '<span class="badge">unknown</span>';

// ---------- experiments ----------

async function experimentsView() {
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

// ---------- one experiment ----------

const COLUMNS = [
  { key: 'order', label: '#', num: true },
  { key: 'name', label: 'Trial' },
  { key: 'condition', label: 'Status' },
  { key: 'bestObjective', label: 'Best objective', num: true },
];

function sortTrials(trials, sort) {
  const value = (t) => (sort.key.startsWith('p:') ? paramValue(t, sort.key.slice(2)) : t[sort.key]);
  const dir = sort.dir === 'asc' ? 1 : -1;
  return [...trials].sort((a, b) => {
    const x = value(a);
    const y = value(b);
    if (x === y) return a.order - b.order;
    if (x === null || x === undefined || x === '') return 1;
    if (y === null || y === undefined || y === '') return -1;
    const nx = Number(x);
    const ny = Number(y);
    if (Number.isFinite(nx) && Number.isFinite(ny)) return (nx - ny) * dir;
    return String(x).localeCompare(String(y)) * dir;
  });
}

const paramValue = (t, name) => t.assignments.find((a) => a.name === name)?.value ?? '';

async function experimentView(name) {
  setCrumbs([[name]]);
  document.title = `Experiment ${name}`;
  main.innerHTML = `<h1>${esc(name)}</h1><dl class="facts" id="facts"></dl>
    <div class="grid">
      <section><h2 id="objective-title">Objective by trial</h2><div class="chart" id="objective-chart" role="img" aria-labelledby="objective-title"></div></section>
      <section><h2 id="parallel-title">Parameters against the objective</h2><div class="chart" id="parallel-chart" role="img" aria-labelledby="parallel-title"></div></section>
    </div>
    <h2>Trials <span id="trial-count" class="badge"></span> <a href="/api/experiments/${enc(name)}/trials?format=csv">CSV</a></h2>
    <div class="table-wrap"><table id="trials"><caption class="skip">Trials of ${esc(name)}</caption><thead></thead><tbody></tbody></table></div>`;
  const objectiveChart = chart(document.getElementById('objective-chart'), {});
  const parallelChart = chart(document.getElementById('parallel-chart'), {});
  const sort = { key: 'order', dir: 'asc' };
  let data;

  const renderTable = () => {
    const params = [...new Set(data.trials.flatMap((t) => t.assignments.map((a) => a.name)))].sort();
    const columns = [...COLUMNS, ...params.map((p) => ({ key: `p:${p}`, label: p, num: true }))];
    const table = document.getElementById('trials');
    table.tHead.innerHTML = `<tr>${columns
      .map((c) => {
        const aria = sort.key === c.key ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none';
        const arrow = sort.key === c.key ? (sort.dir === 'asc' ? ' ▲' : ' ▼') : '';
        return `<th scope="col" aria-sort="${aria}"><button type="button" data-sort="${esc(c.key)}">${esc(c.label)}${arrow}</button></th>`;
      })
      .join('')}</tr>`;
    table.tBodies[0].innerHTML = sortTrials(data.trials, sort)
      .map(
        (t) => `<tr data-trial="${esc(t.name)}" data-condition="${esc(t.condition)}">
        <td class="num">${t.order}</td><td><a href="#/trial/${enc(t.name)}">${esc(t.name)}</a></td>
        <td>${badge(t.condition)}</td><td class="num">${fmt(t.bestObjective)}</td>
        ${params.map((p) => `<td class="num">${esc(paramValue(t, p))}</td>`).join('')}</tr>`,
      )
      .join('');
    document.getElementById('trial-count').textContent = String(data.trials.length);
  };

  document.getElementById('trials').addEventListener('click', (e) => {
    const key = e.target.closest('button[data-sort]')?.dataset.sort;
    if (!key) return;
    sort.dir = sort.key === key && sort.dir === 'asc' ? 'desc' : 'asc';
    sort.key = key;
    renderTable();
    document.querySelector(`button[data-sort="${CSS.escape(key)}"]`)?.focus();
  });

  const renderCharts = () => {
    const { experiment, trials } = data;
    const objective = experiment.objectiveMetric || 'objective';
    const point = (t) => ({ value: [t.order, t.bestObjective], name: t.name });
    const withValue = trials.filter((t) => t.bestObjective !== null);
    const stopped = withValue.filter((t) => t.condition === 'EARLYSTOPPED');
    let best = null;
    const bestSoFar = withValue.map((t) => {
      const better =
        best === null ||
        (experiment.objectiveType === 'MINIMIZE' ? t.bestObjective < best : t.bestObjective > best);
      if (better) best = t.bestObjective;
      return [t.order, best];
    });
    objectiveChart.setOption(
      {
        tooltip: {
          trigger: 'item',
          formatter: (p) => `${esc(p.name || '')}<br>${esc(objective)}: ${fmt(p.value[1])}`,
        },
        legend: { top: 0 },
        grid: { left: 50, right: 16, top: 32, bottom: 40 },
        xAxis: { type: 'value', name: 'trial', nameLocation: 'middle', nameGap: 24, minInterval: 1 },
        yAxis: { type: 'value', name: objective, scale: true },
        dataZoom: [{ type: 'inside' }],
        series: [
          {
            name: 'trial',
            type: 'scatter',
            symbolSize: 7,
            data: withValue.filter((t) => t.condition !== 'EARLYSTOPPED').map(point),
          },
          {
            name: 'early stopped',
            type: 'scatter',
            symbol: 'diamond',
            symbolSize: 10,
            itemStyle: { color: '#b42318' },
            data: stopped.map(point),
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

    const params = [...new Set(trials.flatMap((t) => t.assignments.map((a) => a.name)))].sort();
    const numeric = params.map((p) =>
      trials.every((t) => paramValue(t, p) === '' || Number.isFinite(Number(paramValue(t, p)))),
    );
    const axes = params.map((p, i) =>
      numeric[i]
        ? { dim: i, name: p, type: 'value', scale: true }
        : { dim: i, name: p, type: 'category', data: [...new Set(trials.map((t) => paramValue(t, p)))] },
    );
    axes.push({ dim: params.length, name: objective, type: 'value', scale: true });
    const lo = Math.min(...withValue.map((t) => t.bestObjective));
    const hi = Math.max(...withValue.map((t) => t.bestObjective));
    parallelChart.setOption(
      {
        parallelAxis: axes,
        parallel: { left: 40, right: 60, top: 40, bottom: 30 },
        visualMap: withValue.length
          ? {
              show: false,
              dimension: params.length,
              min: lo,
              max: hi === lo ? lo + 1 : hi,
              inRange: { color: ['#d73027', '#fee08b', '#1a9850'] },
            }
          : undefined,
        series: [
          {
            type: 'parallel',
            lineStyle: { width: 1, opacity: 0.6 },
            progressive: 100,
            progressiveThreshold: 200,
            data: withValue.map((t) => [
              ...params.map((p, i) => (numeric[i] ? Number(paramValue(t, p)) : paramValue(t, p))),
              t.bestObjective,
            ]),
          },
        ],
      },
      { notMerge: true },
    );
  };

  const load = async () => {
    performance.mark('experiment:fetch');
    data = await getJson(`/api/experiments/${enc(name)}/trials`);
    performance.mark('experiment:table');
    const e = data.experiment;
    document.getElementById('facts').innerHTML = `
      <dt>Algorithm</dt><dd>${esc(e.algorithm) || '—'}</dd>
      <dt>Objective</dt><dd>${esc(e.objectiveType)} ${esc(e.objectiveMetric)}</dd>
      <dt>Early stopping</dt><dd id="rules">${
        e.rules.length
          ? e.rules
              .map((r) => `${esc(r.name)} ${esc(r.comparison)} ${esc(r.value)} from step ${r.startStep}`)
              .join('; ')
          : '—'
      }</dd>`;
    renderTable();
    performance.mark('experiment:charts');
    renderCharts();
  };
  await load();
  // Where the time of showing an experiment goes (read by bench/web.ts).
  performance.measure('experiment: fetch and parse', 'experiment:fetch', 'experiment:table');
  performance.measure('experiment: table', 'experiment:table', 'experiment:charts');
  performance.measure('experiment: charts', 'experiment:charts');

  // New trials, observations, statuses and rules: reload at most twice a second, and once more a
  // little later (the persistence worker may apply an event after the stream delivered it).
  let timer;
  let trailing;
  const refresh = () => {
    clearTimeout(trailing);
    trailing = setTimeout(() => load().catch(() => undefined), 2_500);
    if (timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      load().catch(() => undefined);
    }, 500);
  };
  onLeave(() => {
    clearTimeout(timer);
    clearTimeout(trailing);
  });
  stream(`/api/experiments/${enc(name)}/stream`, {
    observations: refresh,
    status: refresh,
    rules: refresh,
    trials: refresh,
  });
}

// ---------- one trial ----------

/** An axis range that holds the values and the rule's value, with a margin so the rule's line shows. */
function padded(extent, ruleValue) {
  const lo = Math.min(extent.min, ruleValue);
  const hi = Math.max(extent.max, ruleValue);
  const margin = (hi - lo || Math.abs(hi) || 1) * 0.08;
  return [lo - margin, hi + margin];
}

async function trialView(name) {
  const { trial, experiment } = await getJson(`/api/trials/${enc(name)}`);
  setCrumbs([
    [
      trial.experiment || '(unknown experiment)',
      trial.experiment ? `#/experiment/${enc(trial.experiment)}` : '',
    ],
    [name],
  ]);
  document.title = `Trial ${name}`;
  main.innerHTML = `<h1>${esc(name)}</h1>
    <dl class="facts">
      <dt>Status</dt><dd id="trial-status">${badge(trial.condition)} <span id="trial-reason">${esc(trial.reason)}</span></dd>
      <dt>Stopped because</dt><dd id="trial-why"></dd>
      <dt>Parameters</dt><dd>${trial.assignments.map((a) => `${esc(a.name)} = ${esc(a.value)}`).join(', ') || '—'}</dd>
      <dt>Rules</dt><dd id="rules"></dd>
    </dl>
    <p><a href="/api/trials/${enc(name)}/observations?format=csv">Observations as CSV</a></p>
    <div class="grid" id="metric-charts"></div>`;
  const state = {
    condition: trial.condition,
    statusAtMs: trial.statusAtMs,
    /** The status message: for a stopped trial, the algorithm and the values it compared. */
    message: trial.message,
    rules: experiment?.rules ?? [],
    /** metric → [[timeMs, value], ...] */
    series: new Map(),
    charts: new Map(),
    /** metric → the zoomed window in percent of the whole time range */
    zoom: new Map(),
    unsorted: new Set(),
  };

  const add = (logs) => {
    for (const log of logs) {
      const value = Number(log.value);
      if (!Number.isFinite(value)) continue;
      if (!state.series.has(log.metric)) state.series.set(log.metric, []);
      const points = state.series.get(log.metric);
      const time = Date.parse(log.time);
      if (points.length && time < points[points.length - 1][0]) state.unsorted.add(log.metric);
      points.push([time, value]);
    }
  };
  performance.mark('trial:fetch');
  const { observations } = await getJson(`/api/trials/${enc(name)}/observations`);
  performance.mark('trial:add');
  add(observations);
  performance.mark('trial:draw');

  const renderRules = () => {
    document.getElementById('rules').innerHTML = state.rules.length
      ? state.rules
          .map((r) => `${esc(r.name)} ${esc(r.comparison)} ${esc(r.value)} from step ${r.startStep}`)
          .join('; ')
      : '—';
    document.getElementById('trial-status').innerHTML = `${badge(state.condition)}`;
    document.getElementById('trial-why').textContent =
      state.condition === 'EARLYSTOPPED' && state.message ? state.message : '—';
  };

  const draw = () => {
    const container = document.getElementById('metric-charts');
    for (const [metric, points] of state.series) {
      let c = state.charts.get(metric);
      if (!c) {
        const id = `metric-${state.charts.size}`;
        container.insertAdjacentHTML(
          'beforeend',
          `<section><h2 id="${id}-title">${esc(metric)}</h2><div class="chart metric-chart" id="${id}" data-metric="${esc(metric)}" role="img" aria-labelledby="${id}-title"></div></section>`,
        );
        c = chart(document.getElementById(id), {
          tooltip: { trigger: 'axis' },
          grid: { left: 50, right: 24, top: 24, bottom: 40 },
          xAxis: { type: 'time' },
          yAxis: { type: 'value', scale: true, name: metric },
          // No data shadow in the slider: it would draw every point a second time.
          dataZoom: [{ type: 'inside' }, { type: 'slider', height: 16, bottom: 4, showDataShadow: false }],
        });
        state.charts.set(metric, c);
        c.on('datazoom', () => {
          const [zoom] = c.getOption().dataZoom;
          state.zoom.set(metric, { start: zoom.start, end: zoom.end });
          redraw();
        });
        // A new chart changes the grid's columns: the others take their new width.
        for (const other of state.charts.values()) other.resize();
      }
      if (state.unsorted.delete(metric)) points.sort((a, b) => a[0] - b[0]);
      const rule = state.rules.find((r) => r.name === metric);
      let stoppedAt;
      if (state.condition === 'EARLYSTOPPED' && points.length) {
        const before = state.statusAtMs ? points.filter((p) => p[0] <= state.statusAtMs) : [];
        stoppedAt = before.length ? before[before.length - 1] : points[points.length - 1];
      }
      const el = document.getElementById(c.getDom().id);
      el.dataset.points = String(points.length);
      el.dataset.rule = rule ? rule.value : '';
      el.dataset.stopped = stoppedAt ? String(stoppedAt[1]) : '';
      // The rule's line is drawn even when the values stay far from it.
      const ruleValue = rule ? Number(rule.value) : undefined;
      c.setOption({
        yAxis: {
          min: ruleValue === undefined ? null : (v) => padded(v, ruleValue)[0],
          max: ruleValue === undefined ? null : (v) => padded(v, ruleValue)[1],
          axisLabel: { formatter: (v) => fmt(v) },
        },
        series: [
          {
            name: metric,
            type: 'line',
            showSymbol: points.length < 200,
            sampling: 'lttb',
            data: decimate(points, state.zoom.get(metric) ?? { start: 0, end: 100 }),
            markLine: rule
              ? {
                  symbol: 'none',
                  label: { formatter: `rule ${rule.comparison} ${rule.value}`, position: 'insideEndTop' },
                  lineStyle: { color: '#b42318', type: 'dashed' },
                  data: [{ yAxis: ruleValue, name: 'early-stopping rule' }],
                }
              : { data: [] },
            markPoint: stoppedAt
              ? {
                  symbol: 'pin',
                  symbolSize: 44,
                  itemStyle: { color: '#b42318' },
                  label: { formatter: 'stopped', fontSize: 9 },
                  data: [{ coord: stoppedAt, name: 'early stopped' }],
                }
              : { data: [] },
          },
        ],
      });
    }
    if (state.series.size === 0) container.innerHTML = '<p class="empty">No observation yet.</p>';
    else container.querySelector('.empty')?.remove();
  };
  renderRules();
  draw();
  // Where the time of showing a trial goes (read by bench/web.ts).
  performance.measure('trial: fetch and parse', 'trial:fetch', 'trial:add');
  performance.measure('trial: points', 'trial:add', 'trial:draw');
  performance.measure('trial: charts', 'trial:draw');

  let pending = false;
  const redraw = () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      draw();
    });
  };
  stream(`/api/trials/${enc(name)}/stream`, {
    observations: (m) => {
      add(m.logs);
      redraw();
    },
    status: (m) => {
      state.condition = m.condition;
      state.statusAtMs = m.atMs;
      state.message = m.message;
      renderRules();
      redraw();
    },
    rules: (m) => {
      state.rules = m.rules;
      renderRules();
      redraw();
    },
  });
}

// ---------- routing ----------

async function route() {
  for (const fn of cleanup.splice(0)) fn();
  const hash = location.hash.replace(/^#\/?/, '');
  const [kind, ...rest] = hash.split('/');
  const name = decodeURIComponent(rest.join('/'));
  try {
    if (kind === 'experiment' && name) await experimentView(name);
    else if (kind === 'trial' && name) await trialView(name);
    else await experimentsView();
    main.dataset.ready = hash || 'experiments';
  } catch (error) {
    main.innerHTML = `<p class="error" role="alert">${esc(error.message)}</p>`;
    main.dataset.ready = 'error';
  }
}

window.addEventListener('hashchange', () => {
  delete main.dataset.ready;
  route().then(() => main.focus());
});
route();
