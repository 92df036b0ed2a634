// ENAS's controller (Katib's TF graph, the ENAS "general" controller) in plain TypeScript: an LSTM
// that, layer by layer, picks an operation and which earlier layers to skip-connect, trained by
// REINFORCE with an exponential-moving-average baseline, a skip-rate KL penalty, an entropy bonus
// in the reward, and Adam (beta1 0, epsilon 1e-3, as Katib). Small dense matrices, Float64Array,
// forward pass taped and differentiated by hand. Pure and deterministic: randomness comes from the
// Rng the caller passes.

import type { Rng } from '../rng.ts';
import type { Architecture, ControllerShape, ControllerState, PolicyOptions } from './controller-params.ts';
import { backward, type Decide, forward } from './controller-tape.ts';

/** Draws one architecture from the policy. */
export function sampleArchitecture(
  state: ControllerState,
  shape: ControllerShape,
  o: PolicyOptions,
  rng: Rng,
): Architecture {
  const arc: Architecture = Array.from({ length: shape.layers }, () => []);
  forward(state, shape, o, (layer, _slot, probs) => {
    const u = rng.next();
    let acc = 0;
    let chosen = probs.length - 1;
    for (let i = 0; i < probs.length; i++) {
      acc += probs[i]!;
      if (u < acc) {
        chosen = i;
        break;
      }
    }
    arc[layer]!.push(chosen);
    return chosen;
  });
  return arc;
}

const teacher =
  (arc: Architecture): Decide =>
  (layer, slot) =>
    arc[layer]![slot]!;

/** log π(arc), ENAS's entropy term and skip penalty for a given architecture. */
export function evaluateArchitecture(
  state: ControllerState,
  shape: ControllerShape,
  o: PolicyOptions,
  arc: Architecture,
): { logProb: number; entropy: number; skipPenalty: number } {
  const tape = forward(state, shape, o, teacher(arc));
  return { logProb: tape.logProb, entropy: tape.entropy, skipPenalty: tape.skipPenalty };
}

/** The analytic gradient, for the finite-difference test. */
export function lossGradient(
  state: ControllerState,
  shape: ControllerShape,
  o: PolicyOptions,
  arc: Architecture,
  coefLogProb: number,
  coefPenalty: number,
): Float64Array {
  return backward(state, shape, o, forward(state, shape, o, teacher(arc)), coefLogProb, coefPenalty);
}

const ADAM_BETA2 = 0.999;
const ADAM_EPSILON = 1e-3;

/**
 * One REINFORCE step on one architecture and its reward (Katib's train_op): the reward gets the
 * entropy bonus, the baseline moves towards it, loss = −log π(arc)·(reward − baseline) +
 * skipWeight·skipPenalty, one Adam step. Returns the new state (the given one is not changed).
 */
export function trainStep(
  state: ControllerState,
  shape: ControllerShape,
  o: PolicyOptions,
  arc: Architecture,
  reward: number,
): ControllerState {
  const tape = forward(state, shape, o, teacher(arc));
  const total = reward + (o.entropyWeight === null ? 0 : o.entropyWeight * tape.entropy);
  const baseline =
    state.baseline === null ? total : state.baseline - (1 - o.baselineDecay) * (state.baseline - total);
  const advantage = total - baseline;
  const grad = backward(state, shape, o, tape, -advantage, o.skipWeight ?? 0);
  const step = state.adamStep + 1;
  const lr = (o.learningRate * Math.sqrt(1 - ADAM_BETA2 ** step)) / 1; // beta1 = 0: no first-moment correction
  const params = Float64Array.from(state.params);
  const adamV = Float64Array.from(state.adamV);
  for (let i = 0; i < params.length; i++) {
    const g = grad[i]!;
    const v = ADAM_BETA2 * adamV[i]! + (1 - ADAM_BETA2) * g * g;
    adamV[i] = v;
    params[i]! -= (lr * g) / (Math.sqrt(v) + ADAM_EPSILON);
  }
  return { params, adamV, adamStep: step, baseline };
}
