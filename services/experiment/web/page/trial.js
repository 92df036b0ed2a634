// One trial: a chart per metric from its curve reduced by the server to about a point per pixel
// column (first, lowest, highest and last of each), the finer slice fetched when zoomed in, live
// points merged into their columns as they arrive.

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
} from './common.js';
import { createCurve, zoomed } from './curve.js';

const main = document.getElementById('main');

/** An axis range that holds the values and the rule's value, with a margin so the rule's line shows. */
function padded(extent, ruleValue) {
  const lo = Math.min(extent.min, ruleValue);
  const hi = Math.max(extent.max, ruleValue);
  const margin = (hi - lo || Math.abs(hi) || 1) * 0.08;
  return [lo - margin, hi + margin];
}

/** The plot's width in pixels: the columns a curve is asked for. */
const plotWidth = (c) => Math.max(50, Math.min(4_000, Math.round(c.getWidth() - 74)));

export async function trialView(name) {
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
  const container = document.getElementById('metric-charts');
  const state = {
    condition: trial.condition,
    statusAtMs: trial.statusAtMs,
    /** The status message: for a stopped trial, the algorithm and the values it compared. */
    message: trial.message,
    rules: experiment?.rules ?? [],
    /** metric → { metric, chart, el, curve, fine: { from, to, curve } | null } */
    metrics: new Map(),
  };
  // Before any chart exists, its plot's width as the grid will make it: two charts a row when two
  // fit (a trial has a few metrics), the grid's gap and the plot's margins left out.
  const width = container.clientWidth;
  const columns = Math.max(50, Math.min(4_000, Math.round((width >= 1_056 ? (width - 16) / 2 : width) - 74)));

  const renderRules = () => {
    document.getElementById('rules').innerHTML = rulesText(state.rules);
    document.getElementById('trial-status').innerHTML = `${badge(state.condition)}`;
    document.getElementById('trial-why').textContent =
      state.condition === 'EARLYSTOPPED' && state.message ? state.message : '—';
  };

  const draw = (m) => {
    const points = m.fine ? zoomed(m.curve, m.fine.curve, m.fine.from, m.fine.to) : m.curve.points();
    const shown = m.fine ? m.fine.curve : m.curve;
    const rule = state.rules.find((r) => r.name === m.metric);
    let stoppedAt;
    if (state.condition === 'EARLYSTOPPED' && points.length) {
      const before = state.statusAtMs ? points.filter((p) => p[0] <= state.statusAtMs) : [];
      stoppedAt = before.length ? before[before.length - 1] : points[points.length - 1];
    }
    Object.assign(m.el.dataset, {
      points: String(m.curve.count),
      drawn: String(points.length),
      origin: String(shown.origin),
      columnMs: String(shown.columnMs),
      zoom: m.fine ? `${m.fine.from},${m.fine.to}` : '',
      rule: rule ? rule.value : '',
      stopped: stoppedAt ? String(stoppedAt[1]) : '',
    });
    const all = m.curve.points();
    // The rule's line is drawn even when the values stay far from it.
    const ruleValue = rule ? Number(rule.value) : undefined;
    m.chart.setOption({
      xAxis: { min: all[0]?.[0] ?? null, max: all.at(-1)?.[0] ?? null },
      yAxis: {
        min: ruleValue === undefined ? null : (v) => padded(v, ruleValue)[0],
        max: ruleValue === undefined ? null : (v) => padded(v, ruleValue)[1],
        axisLabel: { formatter: (v) => fmt(v) },
      },
      series: [
        {
          name: m.metric,
          type: 'line',
          showSymbol: points.length < 200,
          data: points,
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
  };

  /** Zoomed in: the finer slice of the window from the server; all of it: the coarse curve alone. */
  const zoomTo = async (m, start, end) => {
    m.request?.abort();
    const all = m.curve.points();
    if ((start <= 0 && end >= 100) || all.length === 0) {
      m.fine = null;
      draw(m);
      return;
    }
    const [lo, hi] = [all[0][0], all.at(-1)[0]];
    const from = Math.floor(lo + ((hi - lo) * start) / 100);
    const to = Math.ceil(lo + ((hi - lo) * end) / 100);
    const request = new AbortController();
    m.request = request;
    const width = plotWidth(m.chart);
    const query = new URLSearchParams({
      metric: m.metric,
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      columns: String(width),
    });
    const { curves } = await getJson(`/api/trials/${enc(name)}/curves?${query}`, request.signal);
    if (request.signal.aborted || !curves[0]) return;
    m.fine = { from, to, curve: createCurve({ ...curves[0], points: curves[0].pointsInColumns }, 2 * width) };
    draw(m);
  };

  const metricOf = (metric, reduced) => {
    let m = state.metrics.get(metric);
    if (m) return m;
    const id = `metric-${state.metrics.size}`;
    container.querySelector('.empty')?.remove();
    container.insertAdjacentHTML(
      'beforeend',
      `<section><h2 id="${id}-title">${esc(metric)}</h2><div class="chart metric-chart" id="${id}" data-metric="${esc(metric)}" role="img" aria-labelledby="${id}-title"></div></section>`,
    );
    const el = document.getElementById(id);
    const c = chart(el, {
      tooltip: { trigger: 'axis' },
      grid: { left: 50, right: 24, top: 24, bottom: 40 },
      xAxis: { type: 'time' },
      yAxis: { type: 'value', scale: true, name: metric },
      // No data shadow in the slider: it would draw every point a second time.
      dataZoom: [{ type: 'inside' }, { type: 'slider', height: 16, bottom: 4, showDataShadow: false }],
    });
    m = { metric, chart: c, el, curve: reduced ? createCurve(reduced, 2 * columns) : undefined, fine: null };
    state.metrics.set(metric, m);
    let timer;
    c.on('datazoom', () => {
      const [zoom] = c.getOption().dataZoom;
      clearTimeout(timer);
      timer = setTimeout(() => zoomTo(m, zoom.start, zoom.end).catch(() => undefined), 150);
    });
    onLeave(() => {
      clearTimeout(timer);
      m.request?.abort();
    });
    // A new chart changes the grid's columns: the others take their new width.
    for (const other of state.metrics.values()) other.chart.resize();
    return m;
  };

  performance.mark('trial:fetch');
  const { curves } = await getJson(`/api/trials/${enc(name)}/curves?columns=${columns}`);
  performance.mark('trial:add');
  renderRules();
  if (curves.length === 0) container.innerHTML = '<p class="empty">No observation yet.</p>';
  performance.mark('trial:draw');
  // A chart made, then drawn, each in a task of its own.
  for (const reduced of curves) {
    const m = metricOf(reduced.metricName, reduced);
    await nextFrame();
    draw(m);
    await nextFrame();
  }
  // Where the time of showing a trial goes (read by bench/web.ts).
  performance.measure('trial: fetch and parse', 'trial:fetch', 'trial:add');
  performance.measure('trial: charts', 'trial:draw');

  const dirty = new Set();
  const redraw = (m) => {
    if (dirty.size === 0)
      requestAnimationFrame(() => {
        for (const d of dirty) draw(d);
        dirty.clear();
      });
    dirty.add(m);
  };
  stream(`/api/trials/${enc(name)}/stream`, {
    observations: (message) => {
      for (const log of message.logs) {
        const value = Number(log.value);
        if (log.value.trim() === '' || !Number.isFinite(value)) continue;
        const t = Date.parse(log.time);
        const m = metricOf(log.metric);
        m.curve ??= createCurve({ origin: t, columnMs: 1, data: [], points: 0 }, 2 * columns);
        m.curve.add(t, value);
        if (m.fine && t >= m.fine.from && t <= m.fine.to) m.fine.curve.add(t, value);
        redraw(m);
      }
    },
    status: (m) => {
      state.condition = m.condition;
      state.statusAtMs = m.atMs;
      state.message = m.message;
      renderRules();
      for (const metric of state.metrics.values()) redraw(metric);
    },
    rules: (m) => {
      state.rules = m.rules;
      renderRules();
      for (const metric of state.metrics.values()) redraw(metric);
    },
  });
}
