// The tables bench:suggest prints: quality (median regret beside Optuna's, with a verdict) and
// latency (GetSuggestions p50 by completed trials, beside Katib's goptuna service and the goals).
import { anchorFor, RELEASES } from './anchors.ts';
import { LATENCY_CHECKPOINTS, type Latencies } from './latency.ts';
import type { Problem } from './problems.ts';
import type { Job } from './worker.ts';

export interface Outcome {
  readonly job: Job;
  readonly regrets?: number[];
  readonly ms?: number;
  readonly error?: string;
}

export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
}

export function fmt(v: number): string {
  if (!Number.isFinite(v)) return '-';
  return v !== 0 && (Math.abs(v) < 0.01 || Math.abs(v) >= 1e5) ? v.toExponential(1) : v.toPrecision(3);
}

function verdict(ours: number, theirs: number | undefined): string {
  if (theirs === undefined || !Number.isFinite(ours)) return '-';
  return ours <= theirs ? 'ok' : `MISSED ×${(ours / theirs).toPrecision(2)}`;
}

/** Rows padded to columns. */
function aligned(rows: readonly string[][]): string[] {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((row) => row.map((cell, c) => cell.padEnd(widths[c]!)).join('  '));
}

/** One row per batch, problem and algorithm: regret@25/50/100 and ms beside each Optuna release. */
export function qualityTable(
  results: readonly Outcome[],
  shown: readonly Problem[],
  algorithms: readonly string[],
  batches: readonly number[],
): string[] {
  const header = [
    'problem',
    'algorithm',
    'batch',
    'regret@25',
    'regret@50',
    'regret@100 [q25, q75]',
    'ms/sugg',
    ...RELEASES.flatMap((release) => [`${release}@100`, `${release} ms`, `vs ${release}`]),
  ];
  const rows: string[][] = [header];
  for (const batch of batches) {
    for (const problem of shown) {
      for (const algorithm of algorithms) {
        const mine = results.filter(
          (r) =>
            r.job.problem === problem.name &&
            r.job.algorithm === algorithm &&
            r.job.batch === batch &&
            r.regrets,
        );
        if (!mine.length) continue;
        const at = (k: number) => mine.map((r) => r.regrets![k]!);
        const times = mine.flatMap((r) => (r.ms === undefined ? [] : [r.ms]));
        const median100 = quantile(at(2), 0.5);
        rows.push([
          problem.name,
          algorithm,
          String(batch),
          fmt(quantile(at(0), 0.5)),
          fmt(quantile(at(1), 0.5)),
          `${fmt(median100)} [${fmt(quantile(at(2), 0.25))}, ${fmt(quantile(at(2), 0.75))}]`,
          times.length ? quantile(times, 0.5).toFixed(2) : '-',
          ...RELEASES.flatMap((release) => {
            const anchor = anchorFor(release, batch, algorithm, problem.name);
            return [
              anchor ? fmt(anchor.regret[2]) : '-',
              anchor ? anchor.msPerSuggestion.toFixed(2) : '-',
              verdict(median100, anchor?.regret[2]),
            ];
          }),
        ]);
      }
    }
  }
  return aligned(rows);
}

/** The time goals: bayesianoptimization at 100 trials (ms); the others are held to goptuna's p50. */
const GOALS: Readonly<Record<string, Partial<Record<number, number>>>> = {
  bayesianoptimization: { 100: 40 },
};

/** p50 per checkpoint, ours beside goptuna's (same algorithm name) or the fixed goal. */
export function latencyTable(
  ours: ReadonlyMap<string, Latencies>,
  goptuna: ReadonlyMap<string, Latencies>,
): string[] {
  const header = ['algorithm', 'service', ...LATENCY_CHECKPOINTS.map((n) => `p50@${n}`), 'verdict'];
  const rows: string[][] = [header];
  const p50 = (l: Latencies | undefined, n: number) => {
    const v = l?.get(n) ?? [];
    return v.length ? quantile(v, 0.5) : Number.NaN;
  };
  for (const [algorithm, latencies] of ours) {
    const theirs = goptuna.get(algorithm);
    const goal = GOALS[algorithm];
    const verdicts = LATENCY_CHECKPOINTS.flatMap((n) => {
      const bound = theirs ? p50(theirs, n) : goal?.[n];
      const v = verdict(p50(latencies, n), bound);
      return v === 'ok' || v === '-' ? [] : [`@${n} ${v}`];
    });
    const compared = theirs !== undefined || goal !== undefined;
    rows.push([
      algorithm,
      'ours',
      ...LATENCY_CHECKPOINTS.map((n) => p50(latencies, n).toFixed(2)),
      !compared ? '-' : verdicts.length ? verdicts.join(', ') : 'ok',
    ]);
    if (theirs)
      rows.push([algorithm, 'goptuna', ...LATENCY_CHECKPOINTS.map((n) => p50(theirs, n).toFixed(2)), '']);
    else if (goal)
      rows.push([
        algorithm,
        'goal',
        ...LATENCY_CHECKPOINTS.map((n) => (goal[n] === undefined ? '-' : `≤ ${goal[n]}`)),
        '',
      ]);
  }
  return aligned(rows);
}
