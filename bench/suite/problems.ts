// BBOB functions as the bench's Katib problems: x1..xD DOUBLE on [-5, 5]; and mixed variants in
// which every 3k+2-th coordinate (1-based) is INT on -5..5 and every 3k+3-th CATEGORICAL on
// -4, -2, 0, 2, 4, with x_opt rounded onto those values so the optimum stays reachable.
import type { ParameterSpec, Problem } from '../suggest/problems.ts';
import { bbobProblem, withOptimum } from './bbob/index.ts';

export const MIXED_FUNCTIONS = [1, 10, 15] as const;
const LEVELS = ['-4', '-2', '0', '2', '4'];

type Kind = 'DOUBLE' | 'INT' | 'CATEGORICAL';
const kindOf = (i: number, mixed: boolean): Kind =>
  !mixed ? 'DOUBLE' : (['DOUBLE', 'INT', 'CATEGORICAL'] as const)[i % 3]!;

function spec(name: string, kind: Kind): ParameterSpec {
  if (kind === 'INT') return { name, parameterType: 'INT', feasibleSpace: { min: '-5', max: '5' } };
  if (kind === 'CATEGORICAL') return { name, parameterType: 'CATEGORICAL', feasibleSpace: { list: LEVELS } };
  return { name, parameterType: 'DOUBLE', feasibleSpace: { min: '-5', max: '5' } };
}

const onto = (v: number, kind: Kind) =>
  kind === 'INT'
    ? Math.round(v)
    : kind === 'CATEGORICAL'
      ? Math.max(-4, Math.min(4, 2 * Math.round(v / 2)))
      : v;

/** Names like `f15-d5-i2` or, for the mixed variant, `f15m-d5-i2`. */
export function suiteProblem(functionId: number, dims: number, instanceId: number, mixed = false): Problem {
  const own = bbobProblem(functionId, dims, instanceId);
  const kinds = Array.from({ length: dims }, (_, i) => kindOf(i, mixed));
  const problem = mixed
    ? withOptimum(
        functionId,
        own.instance,
        own.instance.xOpt.map((v, i) => onto(v, kinds[i]!)),
      )
    : own;
  const names = kinds.map((_, i) => `x${i + 1}`);
  const parameters = names.map((name, i) => spec(name, kinds[i]!));
  return {
    name: `f${functionId}${mixed ? 'm' : ''}-d${dims}-i${instanceId}`,
    parameters,
    gridParameters: parameters,
    optimum: problem.instance.fOpt,
    continuous: !mixed,
    evaluate: (assignment) => problem.evaluate(names.map((name) => Number(assignment[name]))),
  };
}

export function problemByName(name: string): Problem {
  const match = /^f(\d+)(m?)-d(\d+)-i(\d+)$/.exec(name);
  if (!match) throw new Error(`not a suite problem: ${name}`);
  return suiteProblem(Number(match[1]), Number(match[3]), Number(match[4]), match[2] === 'm');
}
