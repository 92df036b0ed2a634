// enas benchmark on a synthetic architecture problem made for the purpose: each seed hides a
// quality per operation and a preferred skip pattern; an architecture's reward is
//   0.3 + 0.5 · mean over layers of quality[op] + 0.2 · share of skip bits equal to the pattern's
// plus Gaussian noise (σ = BENCH_NOISE), all deterministic from the seed. For every seed, enas runs
// BENCH_ROUNDS rounds of BENCH_PER_ROUND trials, in process through the Suggestion use case, the
// controller state going out of each call and back into the next as it does through the state
// topic; random architectures (uniform ops, fair skip bits) are the baseline. Printed: the mean
// reward of what enas proposes in rounds 6–10 and of random architectures (median and quartiles
// over seeds), and the time per GetSuggestions call (state decode, training, sampling, encode).
import type { Experiment__Output } from '../proto/gen/api/v1/beta1/Experiment.ts';
import type { Trial__Output } from '../proto/gen/api/v1/beta1/Trial.ts';
import { ALGORITHMS } from '../services/experiment/suggestion/registry.ts';
import { createRng, type Rng } from '../services/experiment/suggestion/rng.ts';
import { suggest } from '../services/experiment/suggestion/suggest.ts';
import { int, readSettings, str } from '../shared/settings.ts';
import { percentile } from './stats.ts';

const settings = readSettings(
  {
    seeds: int('BENCH_SEEDS', 20, { min: 1, max: 200 }),
    rounds: int('BENCH_ROUNDS', 10, { min: 6, max: 50 }),
    perRound: int('BENCH_PER_ROUND', 4, { min: 1, max: 50 }),
    layers: int('BENCH_LAYERS', 6, { min: 1, max: 20 }),
    noise: str('BENCH_NOISE', '0.02', 'a standard deviation, e.g. 0.02'),
    learningRates: str('BENCH_LEARNING_RATES', '0.05', 'comma-separated controller_learning_rate values'),
  },
  process.env,
);
const NOISE = Number(settings.noise);
const OPERATIONS = 6; // conv 3/5/7 × stride 1/2 ... as expanded below: 3 × 2 = 6
const FIRST_SCORED_ROUND = 6;

interface Problem {
  readonly quality: readonly number[];
  /** pattern[l][j]: the rewarded value of layer l's skip to layer j. */
  readonly pattern: readonly (readonly number[])[];
}

function problem(seed: number): Problem {
  const rng = createRng(0x5eed0000 + seed);
  return {
    quality: Array.from({ length: OPERATIONS }, () => rng.next()),
    pattern: Array.from({ length: settings.layers }, (_, l) =>
      Array.from({ length: l }, () => (rng.next() < 0.5 ? 0 : 1)),
    ),
  };
}

function reward(p: Problem, arc: number[][], noise: Rng): number {
  let quality = 0;
  let agree = 0;
  let bits = 0;
  for (let l = 0; l < arc.length; l++) {
    const [op, ...skips] = arc[l]!;
    quality += p.quality[op!]!;
    for (let j = 0; j < skips.length; j++) {
      bits++;
      if (skips[j] === p.pattern[l]![j]) agree++;
    }
  }
  return (
    0.3 + (0.5 * quality) / arc.length + (bits === 0 ? 0.2 : (0.2 * agree) / bits) + NOISE * noise.normal()
  );
}

function randomArchitecture(rng: Rng): number[][] {
  return Array.from({ length: settings.layers }, (_, l) => [
    rng.int(OPERATIONS),
    ...Array.from({ length: l }, () => (rng.next() < 0.5 ? 0 : 1)),
  ]);
}

function experiment(name: string, seed: number, learningRate: string): Experiment__Output {
  const categorical = (n: string, list: string[]) => ({
    name: n,
    parameter_type: 'CATEGORICAL' as const,
    feasible_space: { min: '', max: '', list, step: '', distribution: 'DISTRIBUTION_UNSPECIFIED' as const },
  });
  return {
    name,
    spec: {
      parameter_specs: { parameters: [] },
      objective: { type: 'MAXIMIZE', goal: 0, objective_metric_name: 'reward', additional_metric_names: [] },
      algorithm: {
        algorithm_name: 'enas',
        algorithm_settings: [
          { name: 'random_state', value: String(seed) },
          { name: 'controller_learning_rate', value: learningRate },
        ],
      },
      early_stopping: null,
      parallel_trial_count: settings.perRound,
      max_trial_count: settings.rounds * settings.perRound,
      nas_config: {
        graph_config: { num_layers: settings.layers, input_sizes: [32, 32, 3], output_sizes: [10] },
        operations: {
          operation: [
            {
              operation_type: 'convolution',
              parameter_specs: {
                parameters: [categorical('filter_size', ['3', '5', '7']), categorical('stride', ['1', '2'])],
              },
            },
          ],
        },
      },
    },
  };
}

function trialOf(name: string, architecture: string, value: number): Trial__Output {
  return {
    name,
    spec: {
      objective: null,
      parameter_assignments: { assignments: [{ name: 'architecture', value: architecture }] },
      labels: {},
    },
    status: {
      start_time: '',
      completion_time: '',
      condition: 'SUCCEEDED',
      observation: { metrics: [{ name: 'reward', value: String(value) }] },
    },
  };
}

const print = (line: string) => void process.stdout.write(`${line}\n`);
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const f3 = (x: number) => x.toFixed(3);
const quartiles = (xs: readonly number[]) =>
  `median ${f3(percentile(xs, 50))} (q1 ${f3(percentile(xs, 25))}, q3 ${f3(percentile(xs, 75))})`;

print(
  `enas on a synthetic architecture problem: ${settings.seeds} seeds × ${settings.rounds} rounds × ${settings.perRound} trials, ${settings.layers} layers, ${OPERATIONS} operations, noise σ ${NOISE}`,
);
const randomMeans: number[] = [];
for (let seed = 0; seed < settings.seeds; seed++) {
  const p = problem(seed);
  const rng = createRng(0xabc + seed);
  const noise = createRng(0xdef + seed);
  const count = (settings.rounds - FIRST_SCORED_ROUND + 1) * settings.perRound;
  randomMeans.push(mean(Array.from({ length: count }, () => reward(p, randomArchitecture(rng), noise))));
}
print(`random architectures              mean reward ${quartiles(randomMeans)}`);

for (const learningRate of settings.learningRates.split(',')) {
  const means: number[] = [];
  const callMs: number[] = [];
  for (let seed = 0; seed < settings.seeds; seed++) {
    const p = problem(seed);
    const noise = createRng(0xdef + seed);
    const exp = experiment(`bench-nas-${seed}`, seed, learningRate);
    const trials: Trial__Output[] = [];
    const scored: number[] = [];
    let state: Uint8Array | undefined;
    for (let round = 1; round <= settings.rounds; round++) {
      const started = performance.now();
      const result = suggest(
        {
          experiment: exp,
          trials,
          current_request_number: settings.perRound,
          total_request_number: trials.length + settings.perRound,
        },
        ALGORITHMS,
        state,
      );
      callMs.push(performance.now() - started);
      state = result.controllerState ?? state;
      for (const set of result.reply.parameter_assignments ?? []) {
        const text = set.assignments!.find((a) => a.name === 'architecture')!.value!;
        const value = reward(p, JSON.parse(text) as number[][], noise);
        if (round >= FIRST_SCORED_ROUND) scored.push(value);
        trials.push(trialOf(`t${trials.length}`, text, value));
      }
    }
    means.push(mean(scored));
  }
  const wins = means.filter((m, i) => m > randomMeans[i]!).length;
  print(
    `enas lr ${learningRate.padEnd(8)} rounds ${FIRST_SCORED_ROUND}-${settings.rounds}  mean reward ${quartiles(means)}; beats random on ${wins}/${settings.seeds} seeds; margin of medians ${f3(percentile(means, 50) - percentile(randomMeans, 50))}`,
  );
  print(
    `  GetSuggestions (in process, ${settings.perRound} proposals, state decoded/trained/encoded): median ${percentile(callMs, 50).toFixed(1)} ms, p90 ${percentile(callMs, 90).toFixed(1)} ms, max ${Math.max(...callMs).toFixed(1)} ms`,
  );
}
