// An experiment's objective views: the Pareto front (GET /api/experiments/NAME/pareto) as a scatter
// of two objectives (with three or more, the pair chosen), each parameter's importance per objective
// (GET .../importance) as bars, and a slice per parameter: an objective against the parameter's
// values, one point per counted trial.

import { esc, fmt, pointsOf } from './common.js';

const FRONT_COLOR = '#d94801';
const OTHER_COLOR = '#8c96a0';

const label = (objective) =>
  `${objective.metricName} (${objective.type === 'MAXIMIZE' ? 'maximize' : 'minimize'})`;

/** A scatter series of many points: one path for all (large mode), never for none (ECharts 6 throws). */
const scatter = (pairs, extra) => ({
  type: 'scatter',
  large: pairs.length > 0,
  largeThreshold: 0,
  data: pointsOf(pairs),
  ...extra,
});

/**
 * The counted trials in objectives x and y: the front apart, drawn over the others. Returns how many
 * points each series has (the tests and the note read them).
 */
export function drawPareto(c, pareto, x, y, onTrial) {
  const front = [];
  const others = [];
  /** Each series' trials, for the tooltip and a click. */
  const of = [[], []];
  for (const t of pareto.trials) {
    const onFront = t.rank === 0;
    (onFront ? front : others).push([t.values[x], t.values[y]]);
    of[onFront ? 0 : 1].push(t);
  }
  const [ox, oy] = [pareto.objectives[x], pareto.objectives[y]];
  c.setOption(
    {
      tooltip: {
        trigger: 'item',
        formatter: (p) => {
          const t = of[p.seriesIndex][p.dataIndex];
          return `${esc(t.name)}${t.rank === 0 ? ' (front)' : ` (rank ${t.rank})`}<br>${pareto.objectives
            .map((o, k) => `${esc(o.metricName)}: ${fmt(t.values[k])}`)
            .join('<br>')}`;
        },
      },
      legend: { top: 0 },
      grid: { left: 56, right: 16, top: 32, bottom: 44 },
      xAxis: { type: 'value', name: label(ox), nameLocation: 'middle', nameGap: 26, scale: true },
      yAxis: { type: 'value', name: label(oy), scale: true },
      dataZoom: [{ type: 'inside' }],
      series: [
        scatter(front, { name: 'front', symbolSize: 9, z: 3, itemStyle: { color: FRONT_COLOR } }),
        scatter(others, {
          name: 'dominated',
          symbolSize: 5,
          itemStyle: { color: OTHER_COLOR, opacity: 0.6 },
        }),
      ],
    },
    { notMerge: true },
  );
  c.off('click');
  c.on('click', (p) => {
    const t = of[p.seriesIndex]?.[p.dataIndex];
    if (t) onTrial(t.name);
  });
  return { front: front.length, others: others.length };
}

/** Horizontal bars, a series per objective, the parameters most important (for the first) on top. */
export function drawImportance(c, importance) {
  const fitted = importance.objectives.filter((o) => o.importances !== null);
  if (fitted.length === 0) {
    c.setOption({ series: [] }, { notMerge: true });
    return [];
  }
  const first = new Map(fitted[0].importances.map((p) => [p.parameter, p.importance]));
  // A category axis draws its first entry at the bottom: least important first.
  const parameters = [...first.keys()].sort((a, b) => first.get(a) - first.get(b) || (a < b ? 1 : -1));
  c.setOption(
    {
      tooltip: {
        trigger: 'axis',
        axisPointer: { type: 'shadow' },
        valueFormatter: (v) => `${fmt(v * 100)}%`,
      },
      legend: { top: 0, show: fitted.length > 1 },
      grid: { left: 8, right: 24, top: fitted.length > 1 ? 32 : 12, bottom: 28, containLabel: true },
      xAxis: { type: 'value', min: 0, max: 1, axisLabel: { formatter: (v) => `${Math.round(v * 100)}%` } },
      yAxis: { type: 'category', data: parameters },
      series: fitted.map((o) => {
        const share = new Map(o.importances.map((p) => [p.parameter, p.importance]));
        return { type: 'bar', name: o.metricName, data: parameters.map((p) => share.get(p)) };
      }),
    },
    { notMerge: true },
  );
  return [...parameters].reverse();
}

/** Whether a parameter's values read as numbers, and on which axis: from its search space when known. */
export function axisOf(spec, values) {
  const type = spec?.parameterType;
  if (
    type === 'CATEGORICAL' ||
    (type === undefined && !values.every((v) => v === '' || Number.isFinite(Number(v))))
  )
    return {
      type: 'category',
      data: spec?.list?.length ? [...spec.list] : [...new Set(values.filter((v) => v !== ''))],
    };
  const log = spec?.distribution === 'LOG_UNIFORM' || spec?.distribution === 'LOG_NORMAL';
  return { type: log ? 'log' : 'value' };
}

/**
 * One parameter's slice: objective k of every counted trial against the trial's value of the
 * parameter (summary.values, found by trial name). Returns how many points it drew.
 */
export function drawSlice(c, { parameter, spec, pareto, summary, index, k }) {
  const column = summary.values[summary.parameters.indexOf(parameter)] ?? [];
  const axis = axisOf(spec, column);
  const pairs = [];
  const names = [];
  for (const t of pareto.trials) {
    const text = column[index.get(t.name)] ?? '';
    if (text === '') continue;
    const x = axis.type === 'category' ? axis.data.indexOf(text) : Number(text);
    if (axis.type === 'category' ? x < 0 : !Number.isFinite(x) || (axis.type === 'log' && x <= 0)) continue;
    pairs.push([x, t.values[k]]);
    names.push(t.name);
  }
  const objective = pareto.objectives[k];
  c.setOption(
    {
      tooltip: {
        trigger: 'item',
        formatter: (p) =>
          `${esc(names[p.dataIndex])}<br>${esc(parameter)}: ${esc(
            axis.type === 'category' ? axis.data[p.value[0]] : fmt(p.value[0]),
          )}<br>${esc(objective.metricName)}: ${fmt(p.value[1])}`,
      },
      grid: { left: 52, right: 12, top: 12, bottom: 40 },
      xAxis: { ...axis, name: parameter, nameLocation: 'middle', nameGap: 24, scale: axis.type === 'value' },
      yAxis: { type: 'value', name: objective.metricName, scale: true },
      series: [scatter(pairs, { symbolSize: 5, itemStyle: { color: '#0a58ca', opacity: 0.6 } })],
    },
    { notMerge: true },
  );
  return pairs.length;
}
