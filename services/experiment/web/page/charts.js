// An experiment's two charts from the summary of its trials (GET /api/experiments/NAME/summary):
// the objective by trial order and the parameters against the objective.

import { esc, fmt, pointsOf } from './common.js';

/**
 * Each trial's best objective by its order, early-stopped ones apart, and the best so far. Draws
 * all but the trials' points, and returns what adds them (a task of its own: there may be many).
 */
export function drawObjective(c, summary) {
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
    data: pointsOf(pairs),
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

/** The names of the parallel coordinates' axes: each parameter, then the objective. */
export const parallelAxisNames = (summary) => [
  ...summary.parameters,
  summary.experiment.objectiveMetric || 'objective',
];

/**
 * One line per trial with an objective (or a summary of them), across its parameters and the
 * objective, leaving out the axes named in `hidden`.
 */
export function drawParallel(c, summary, hidden = new Set()) {
  const { experiment, parameters, values, best } = summary;
  const objective = experiment.objectiveMetric || 'objective';
  const numeric = values.map((column) => column.every((v) => v === '' || Number.isFinite(Number(v))));
  const shown = parameters.flatMap((p, i) => (hidden.has(p) ? [] : [i]));
  const axes = shown.map((i, dim) =>
    numeric[i]
      ? { dim, name: parameters[i], type: 'value', scale: true }
      : { dim, name: parameters[i], type: 'category', data: [...new Set(values[i])] },
  );
  const objectiveShown = !hidden.has(objective);
  if (objectiveShown) axes.push({ dim: shown.length, name: objective, type: 'value', scale: true });
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
    const line = shown.map((i) => (numeric[i] ? Number(values[i][t]) : values[i][t]));
    if (objectiveShown) line.push(v);
    lines.push(line);
  }
  c.setOption(
    {
      parallelAxis: axes,
      parallel: { left: 40, right: 60, top: 40, bottom: 30 },
      // Lines coloured by the objective while its axis shows.
      visualMap:
        lines.length && objectiveShown
          ? {
              show: false,
              dimension: shown.length,
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
