// The CI subset of bench:suite: the real bench script on a tiny grid (3 functions, one a mixed
// space, in 3-D, 20 trials, 2 seeds, three samplers), with Optuna 5.0's side taken from runs it
// recorded (bench/suite/fixtures/optuna5-ci.json, written by the bench with CI_FLAGS and
// `--cache DIR` from DIR/optuna5/), so no Python and no network. Checks that two runs agree run
// for run and that the report's numbers follow from the cached runs.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { REGRET_FLOOR } from '../../../bench/suite/report.ts';
import { median } from '../../../services/experiment/earlystopping/medianstop.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const SAMPLERS = ['random', 'tpe', 'cmaes'];
const CI_FLAGS = ['--functions', '1,8,15m', '--dims', '3', '--budgets', '20', '--seeds', '2'];
const recorded = JSON.parse(
  readFileSync(join(ROOT, 'bench', 'suite', 'fixtures', 'optuna5-ci.json'), 'utf8'),
) as Record<string, number[]>;
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function runBench(): Promise<{ dir: string; stdout: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'suite-ci-'));
  dirs.push(dir);
  for (const [key, regrets] of Object.entries(recorded)) {
    const path = join(dir, 'optuna5', `${key}.json`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify({ regrets }));
  }
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['bench/suite.ts', ...CI_FLAGS, '--samplers', SAMPLERS.join(','), '--cache', dir],
    { cwd: ROOT },
  );
  return { dir, stdout };
}

const finals = (dir: string, side: string, sampler: string, cell: string) => {
  const [f, d, b] = cell.split('-');
  return readdirSync(join(dir, side, sampler))
    .filter((name) => name.startsWith(`${f}-${d}-`) && name.includes(`-${b}-`))
    .map(
      (name) =>
        (
          JSON.parse(readFileSync(join(dir, side, sampler, name), 'utf8')) as { regrets: number[] }
        ).regrets.at(-1)!,
    );
};

describe('bench:suite on its CI subset', () => {
  it('runs from recorded Optuna runs, repeats itself, and reports what the runs say', async () => {
    const [first, second] = await Promise.all([runBench(), runBench()]);
    expect(first.stdout).toContain("(0 of Optuna's not cached)");
    for (const sampler of SAMPLERS) {
      const names = readdirSync(join(first.dir, 'ours', sampler)).sort();
      expect(names).toHaveLength(6);
      for (const name of names) {
        const read = (dir: string) => readFileSync(join(dir, 'ours', sampler, name), 'utf8');
        expect(read(second.dir)).toBe(read(first.dir));
        expect((JSON.parse(read(first.dir)) as { regrets: number[] }).regrets).toHaveLength(20);
      }
    }

    const report = readFileSync(join(first.dir, 'report.md'), 'utf8').split('\n');
    const cellRows = report
      .filter((line) => /^\| \w+ \| f\d+m?-d3-b20 \|/.test(line))
      .map((line) => line.split(' | '));
    expect(cellRows).toHaveLength(SAMPLERS.length * 3);
    const ratios = new Map<string, number[]>();
    const lows = new Map<string, number[]>();
    for (const [head, cell, , , ratio, interval] of cellRows) {
      const sampler = head!.slice(2);
      const floor = (v: number) => Math.max(v, REGRET_FLOOR);
      const expected =
        floor(median(finals(first.dir, 'ours', sampler, cell!))) /
        floor(median(finals(first.dir, 'optuna5', sampler, cell!)));
      expect(Number(ratio) / expected).toBeCloseTo(1, 2);
      ratios.set(sampler, [...(ratios.get(sampler) ?? []), expected]);
      lows.set(sampler, [...(lows.get(sampler) ?? []), Number(interval!.split('–')[0])]);
    }
    for (const sampler of SAMPLERS) {
      const row = report.find((line) => line.startsWith(`| ${sampler} | ${sampler} | 3 |`))!.split(' | ');
      const mine = ratios.get(sampler)!;
      const ahead = Math.round((100 * mine.filter((r) => r <= 1).length) / mine.length);
      expect(row[3]).toBe(`${ahead} %`);
      const geo = Math.exp(mine.reduce((s, r) => s + Math.log(r), 0) / mine.length);
      expect(Number(row[4]) / geo).toBeCloseTo(1, 2);
      expect(row[6]).toBe(String(mine.filter((r) => r > 1.5).length));
      expect(row[7]).toBe(String(lows.get(sampler)!.filter((low) => low > 1).length));
    }

    const svg = readFileSync(join(first.dir, 'ecdf.svg'), 'utf8');
    expect(svg.match(/<g transform=/g)).toHaveLength(SAMPLERS.length);
    expect(svg.match(/<path /g)).toHaveLength(2 * SAMPLERS.length);
  });
});
