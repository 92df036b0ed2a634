// The 24 noiseless BBOB functions by number, each with where its optimum lies for an instance.
import { createInstance, type Instance } from './instance.ts';
import * as m from './multimodal.ts';
import type { Vector } from './transforms.ts';
import * as u from './unimodal.ts';

export interface BbobFunction {
  readonly id: number;
  readonly name: string;
  readonly objective: (instance: Instance) => u.Objective;
  /** From the instance's uniform draw in [-4, 4]^D to where this function puts its optimum. */
  readonly placeOptimum: (drawn: Vector, instance: Instance) => number[];
}

const asDrawn = (drawn: Vector) => [...drawn];
const signs = (drawn: Vector, size: number) => drawn.map((v) => (v >= 0 ? size : -size));

/** Where R x = 1/(2c) (the rotated Rosenbrock's z = 1): x = R^T times that vector. */
function rotatedRosenbrockOptimum(_: Vector, p: Instance): number[] {
  const c = Math.max(1, Math.sqrt(p.dims) / 8);
  return p.rotationR[0]!.map((_, j) => p.rotationR.reduce((s, row) => s + row[j]! / (2 * c), 0));
}

const table: [string, BbobFunction['objective'], BbobFunction['placeOptimum']][] = [
  ['sphere', u.sphere, asDrawn],
  ['ellipsoid', u.ellipsoidSeparable, asDrawn],
  ['rastrigin', u.rastriginSeparable, asDrawn],
  // Its odd (1-based) coordinates' optimum is on the positive side, where the scale is larger.
  ['bueche-rastrigin', u.buecheRastrigin, (d) => d.map((v, i) => (i % 2 === 0 ? Math.abs(v) : v))],
  ['linear-slope', u.linearSlope, (d) => signs(d, 5)],
  ['attractive-sector', u.attractiveSector, asDrawn],
  ['step-ellipsoid', u.stepEllipsoid, asDrawn],
  ['rosenbrock', u.rosenbrock, (d) => d.map((v) => 0.75 * v)],
  ['rosenbrock-rotated', u.rosenbrockRotated, rotatedRosenbrockOptimum],
  ['ellipsoid-rotated', u.ellipsoidRotated, asDrawn],
  ['discus', u.discus, asDrawn],
  ['bent-cigar', u.bentCigar, asDrawn],
  ['sharp-ridge', u.sharpRidge, asDrawn],
  ['different-powers', u.differentPowers, asDrawn],
  ['rastrigin-rotated', m.rastriginRotated, asDrawn],
  ['weierstrass', m.weierstrass, asDrawn],
  ['schaffers-f7', m.schaffersF7, asDrawn],
  ['schaffers-f7-ill', m.schaffersF7IllConditioned, asDrawn],
  ['griewank-rosenbrock', m.griewankRosenbrock, rotatedRosenbrockOptimum],
  ['schwefel', m.schwefel, (d) => signs(d, m.SCHWEFEL_OPTIMUM)],
  ['gallagher-101', m.gallagher101, asDrawn],
  ['gallagher-21', m.gallagher21, (d) => d.map((v) => 0.98 * v)],
  ['katsuura', m.katsuura, asDrawn],
  ['lunacek', m.lunacekBiRastrigin, (d) => signs(d, m.LUNACEK_MU0 / 2)],
];

export const BBOB: readonly BbobFunction[] = table.map(([name, objective, placeOptimum], i) => ({
  id: i + 1,
  name,
  objective,
  placeOptimum,
}));

export interface BbobProblem {
  readonly functionId: number;
  readonly instance: Instance;
  readonly evaluate: u.Objective;
}

/** Function `id` in `dims` dimensions, instance `instanceId`, from this project's generator. */
export function bbobProblem(id: number, dims: number, instanceId: number): BbobProblem {
  const drawn = createInstance(id, dims, instanceId);
  return withOptimum(id, drawn, BBOB[id - 1]!.placeOptimum(drawn.xOpt, drawn));
}

/** The same function with a given optimum and f_opt (cocoex's, in the fixture test). */
export function withOptimum(id: number, instance: Instance, xOpt: Vector, fOpt = instance.fOpt): BbobProblem {
  const placed: Instance = { ...instance, xOpt, fOpt };
  return { functionId: id, instance: placed, evaluate: BBOB[id - 1]!.objective(placed) };
}
