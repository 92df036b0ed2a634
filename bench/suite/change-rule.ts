// The suite's change rule as a command: two reports (bench:suite writes CACHE/report.md) of the
// same cells, before and after a sampler change. The change may land only when, per sampler, the
// geometric-mean ratio does not rise and no cell's new ratio is above the old cell's 90 %
// bootstrap upper bound (its seed-to-seed noise). Exits 1 when the rule is broken.
//   node bench/suite/change-rule.ts OLD/report.md NEW/report.md
import { readFileSync } from 'node:fs';

interface Cell {
  readonly ratio: number;
  readonly low: number;
  readonly high: number;
}

/** The cell table's rows: | sampler | cell | ours | Optuna | ratio | low–high |. */
export function parseCells(markdown: string): Map<string, Cell> {
  const cells = new Map<string, Cell>();
  for (const line of markdown.split('\n')) {
    const parts = line.split('|').map((p) => p.trim());
    if (parts.length !== 8 || !/^f\d+m?-d\d+-b\d+$/.test(parts[2]!)) continue;
    const [low, high] = parts[6]!.split('–').map(Number);
    cells.set(`${parts[1]} ${parts[2]}`, { ratio: Number(parts[5]), low: low!, high: high! });
  }
  return cells;
}

export interface Verdict {
  readonly sampler: string;
  readonly cells: number;
  readonly geoBefore: number;
  readonly geoAfter: number;
  /** Cells whose new ratio is above the old upper bound (worse beyond noise). */
  readonly worse: readonly string[];
  /** Cells whose new ratio is below the old lower bound (better beyond noise). */
  readonly better: readonly string[];
  readonly holds: boolean;
}

export function judge(before: Map<string, Cell>, after: Map<string, Cell>): Verdict[] {
  const bySampler = new Map<string, string[]>();
  for (const key of after.keys()) {
    if (!before.has(key)) continue;
    const sampler = key.split(' ')[0]!;
    bySampler.set(sampler, [...(bySampler.get(sampler) ?? []), key]);
  }
  const geo = (keys: readonly string[], table: Map<string, Cell>) =>
    Math.exp(keys.reduce((s, k) => s + Math.log(table.get(k)!.ratio), 0) / keys.length);
  return [...bySampler].map(([sampler, keys]) => {
    const worse = keys.filter((k) => after.get(k)!.ratio > before.get(k)!.high);
    const better = keys.filter((k) => after.get(k)!.ratio < before.get(k)!.low);
    const geoBefore = geo(keys, before);
    const geoAfter = geo(keys, after);
    return {
      sampler,
      cells: keys.length,
      geoBefore,
      geoAfter,
      worse,
      better,
      holds: geoAfter <= geoBefore && worse.length === 0,
    };
  });
}

if (import.meta.main) {
  const [oldPath, newPath] = process.argv.slice(2);
  if (!oldPath || !newPath) {
    process.stderr.write('usage: node bench/suite/change-rule.ts OLD/report.md NEW/report.md\n');
    process.exit(2);
  }
  const before = parseCells(readFileSync(oldPath, 'utf8'));
  const after = parseCells(readFileSync(newPath, 'utf8'));
  const verdicts = judge(before, after);
  const ratioOf = (table: Map<string, Cell>, key: string) => table.get(key)!.ratio;
  for (const v of verdicts) {
    const list = (keys: readonly string[]) =>
      keys.map((k) => `${k.split(' ')[1]} ${ratioOf(before, k)} → ${ratioOf(after, k)}`).join(', ') || 'none';
    process.stdout.write(
      `${v.sampler}: ${v.cells} cells, geo-mean ${v.geoBefore.toPrecision(4)} → ${v.geoAfter.toPrecision(4)}; ` +
        `worse beyond noise: ${list(v.worse)}; better beyond noise: ${list(v.better)} — ` +
        `${v.holds ? 'the rule holds' : 'the rule is broken'}\n`,
    );
  }
  process.exit(verdicts.every((v) => v.holds) && verdicts.length > 0 ? 0 : 1);
}
