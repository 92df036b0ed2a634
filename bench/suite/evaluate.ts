// Evaluates suite problems for the Optuna side (optuna5-suite.py), so both sides use one
// definition: reads `{"problem": name, "params": {...}}` lines, writes `{"value", "optimum"}` lines.
import { createInterface } from 'node:readline';
import type { Problem } from '../suggest/problems.ts';
import { problemByName } from './problems.ts';

const cache = new Map<string, Problem>();
for await (const line of createInterface({ input: process.stdin })) {
  const { problem: name, params } = JSON.parse(line) as { problem: string; params: Record<string, string> };
  const problem = cache.get(name) ?? problemByName(name);
  cache.set(name, problem);
  const assignment = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)]));
  process.stdout.write(
    `${JSON.stringify({ value: problem.evaluate(assignment), optimum: problem.optimum })}\n`,
  );
}
