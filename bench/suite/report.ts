// The suite's summary, pure: per sampler and cell (function, dimension, budget), the median final
// regret of ours and of Optuna 5.0's matching sampler over seeds, their ratio, and a bootstrap
// interval of that ratio (the seed-to-seed noise the change rule in docs/performance.md uses).
import { median } from '../../services/experiment/earlystopping/medianstop.ts';
import { uniformStream } from './bbob/instance.ts';

export interface Run {
  readonly sampler: string;
  readonly cell: string;
  readonly seed: number;
  readonly ours: number;
  readonly theirs: number;
}

export interface CellSummary {
  readonly sampler: string;
  readonly cell: string;
  readonly ours: number;
  readonly theirs: number;
  readonly ratio: number;
  readonly low: number;
  readonly high: number;
}

/** Regrets below COCO's smallest target count as reaching it, so ratios stay finite. */
export const REGRET_FLOOR = 1e-8;

const ratioOf = (ours: number, theirs: number) =>
  Math.max(ours, REGRET_FLOOR) / Math.max(theirs, REGRET_FLOOR);

/** Seeds resampled with replacement on both sides; the 5th and 95th percentiles of the ratio. */
function bootstrap(ours: readonly number[], theirs: readonly number[], rounds = 500): [number, number] {
  const next = uniformStream(45);
  const pick = (values: readonly number[]) => values.map(() => values[Math.floor(next() * values.length)]!);
  const ratios = Array.from({ length: rounds }, () => ratioOf(median(pick(ours)), median(pick(theirs)))).sort(
    (a, b) => a - b,
  );
  return [ratios[Math.floor(0.05 * rounds)]!, ratios[Math.floor(0.95 * rounds)]!];
}

export function summarize(runs: readonly Run[]): CellSummary[] {
  const groups = new Map<string, Run[]>();
  for (const run of runs) {
    const key = `${run.sampler}\u0000${run.cell}`;
    groups.set(key, [...(groups.get(key) ?? []), run]);
  }
  return [...groups.values()].map((group) => {
    const ours = group.map((r) => r.ours);
    const theirs = group.map((r) => r.theirs);
    const [low, high] = bootstrap(ours, theirs);
    return {
      sampler: group[0]!.sampler,
      cell: group[0]!.cell,
      ours: median(ours),
      theirs: median(theirs),
      ratio: ratioOf(median(ours), median(theirs)),
      low,
      high,
    };
  });
}

const fmt = (v: number) =>
  v !== 0 && (Math.abs(v) < 0.01 || Math.abs(v) >= 1e4) ? v.toExponential(2) : v.toPrecision(3);

/** Markdown: one summary line per sampler, then every cell. */
export function reportLines(
  cells: readonly CellSummary[],
  reference: Readonly<Record<string, string>>,
): string[] {
  const samplers = [...new Set(cells.map((c) => c.sampler))];
  const lines = [
    '| sampler | vs Optuna 5.0 | cells | at or ahead | geo-mean ratio | worst cells (ratio) | over 1.5× | behind beyond noise | noise |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const sampler of samplers) {
    const mine = cells.filter((c) => c.sampler === sampler);
    const ahead = mine.filter((c) => c.ratio <= 1).length;
    const geo = Math.exp(mine.reduce((s, c) => s + Math.log(c.ratio), 0) / mine.length);
    const worst = [...mine].sort((a, b) => b.ratio - a.ratio).slice(0, 3);
    const over = mine.filter((c) => c.ratio > 1.5).length;
    // Behind even at the low end of the cell's 90 % interval.
    const behind = mine.filter((c) => c.low > 1).length;
    // How far a cell's ratio may rise by chance: the median over cells of upper bound / ratio.
    const noise = median(mine.map((c) => c.high / c.ratio));
    lines.push(
      `| ${sampler} | ${reference[sampler]} | ${mine.length} | ${((100 * ahead) / mine.length).toFixed(0)} % | ${fmt(geo)} | ${worst.map((c) => `${c.cell} ${fmt(c.ratio)}`).join(', ')} | ${over} | ${behind} | ×${fmt(noise)} |`,
    );
  }
  lines.push(
    '',
    '| sampler | cell | ours median | Optuna median | ratio | 90 % bootstrap |',
    '| --- | --- | --- | --- | --- | --- |',
  );
  for (const c of cells) {
    lines.push(
      `| ${c.sampler} | ${c.cell} | ${fmt(c.ours)} | ${fmt(c.theirs)} | ${fmt(c.ratio)} | ${fmt(c.low)}–${fmt(c.high)} |`,
    );
  }
  return lines;
}
