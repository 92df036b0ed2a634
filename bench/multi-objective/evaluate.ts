// Evaluates the problems of ./problems.ts for Optuna's side (optuna5_multi_objective.py), so both
// sides share one definition: reads `{"problem": name, "params": {...}}` lines and writes
// `{"values": [...]}` lines, one loss per objective.
import { createInterface } from 'node:readline';
import { multiObjectiveProblem } from './problems.ts';

for await (const line of createInterface({ input: process.stdin })) {
  const { problem, params } = JSON.parse(line) as { problem: string; params: Record<string, unknown> };
  const assignment = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)]));
  process.stdout.write(
    `${JSON.stringify({ values: multiObjectiveProblem(problem).evaluate(assignment) })}\n`,
  );
}
