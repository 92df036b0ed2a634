// GetSuggestionsRequest decoding: grpc-js's generic deserializer (protobufjs decode + toObject)
// against the hand-written reader (services/experiment/suggestion/adapters/suggestions-request.ts),
// on hartmann6-like requests as Katib's controller sends them: six DOUBLE parameters, every
// completed trial with its objective, assignments, start and completion times, SUCCEEDED and one
// metric. The two alternate in rounds; the median time per decode is printed per trial count.
//
//   node bench/suggest/request-decode.ts [rounds]
import assert from 'node:assert/strict';
import type { GetSuggestionsRequest__Output } from '../../proto/gen/api/v1/beta1/GetSuggestionsRequest.ts';
import type { Trial__Output } from '../../proto/gen/api/v1/beta1/Trial.ts';
import {
  readSuggestionsRequest,
  withSuggestionsRequestReader,
} from '../../services/experiment/suggestion/adapters/suggestions-request.ts';
import { createRng } from '../../services/experiment/suggestion/rng.ts';
import { loadPackageDefinition, lookupService } from '../../shared/grpc.ts';
import { percentile } from '../stats.ts';

const TRIAL_COUNTS = [10, 50, 100, 200] as const;
const ROUNDS = Number(process.argv[2] ?? 21);
/** Each timing decodes the request this many times (about 20 ms of work per timing at 200 trials). */
const DECODES_PER_TIMING = 50;

const print = (line: string) => void process.stdout.write(`${line}\n`);

const Suggestion = lookupService(loadPackageDefinition(['api/v1beta1/api.proto']), 'api.v1.beta1.Suggestion');
const generic = Suggestion.service.GetSuggestions!;
const reader = withSuggestionsRequestReader(Suggestion.service).GetSuggestions!;

const OBJECTIVE = { type: 'MINIMIZE', goal: 0, objective_metric_name: 'loss', additional_metric_names: [] };
const PARAMETERS = ['x1', 'x2', 'x3', 'x4', 'x5', 'x6'];

function hartmannRequest(trialCount: number): GetSuggestionsRequest__Output {
  // Seeded, so every run decodes the same bytes.
  const random = createRng(trialCount).next;
  const second = (index: number, offset: number) =>
    new Date(Date.UTC(2024, 0, 1) + (2 * index + offset) * 1000).toISOString().replace('.000', '');
  const trials: Trial__Output[] = Array.from({ length: trialCount }, (_, index) => ({
    name: `hartmann6-${String(index).padStart(4, '0')}`,
    spec: {
      objective: OBJECTIVE,
      parameter_assignments: {
        assignments: PARAMETERS.map((name) => ({ name, value: String(random()) })),
      },
      labels: {},
    },
    status: {
      start_time: second(index, 0),
      completion_time: second(index, 1),
      condition: 'SUCCEEDED',
      observation: { metrics: [{ name: 'loss', value: String(-3 * random()) }] },
    },
  })) as Trial__Output[];
  return {
    experiment: {
      name: 'hartmann6',
      spec: {
        parameter_specs: {
          parameters: PARAMETERS.map((name) => ({
            name,
            parameter_type: 'DOUBLE',
            feasible_space: { max: '1', min: '0', list: [], step: '', distribution: 'UNIFORM' },
          })),
        },
        objective: OBJECTIVE,
        algorithm: { algorithm_name: 'tpe', algorithm_settings: [{ name: 'random_state', value: '7' }] },
        early_stopping: null,
        parallel_trial_count: 1,
        max_trial_count: 300,
        nas_config: null,
      },
    },
    trials,
    current_request_number: 1,
    total_request_number: trialCount + 1,
  } as GetSuggestionsRequest__Output;
}

/** Milliseconds per decode over DECODES_PER_TIMING decodes. */
function time(decode: (bytes: Buffer) => unknown, bytes: Buffer): number {
  const started = performance.now();
  for (let i = 0; i < DECODES_PER_TIMING; i++) decode(bytes);
  return (performance.now() - started) / DECODES_PER_TIMING;
}

const requests = TRIAL_COUNTS.map((count) => {
  const bytes = generic.requestSerialize(hartmannRequest(count));
  // The reader answers these itself (it does not hand them to the generic decoder) and agrees with it.
  const read = readSuggestionsRequest(bytes);
  assert.ok(read !== undefined, `the reader stepped aside from the ${count}-trial request`);
  assert.deepStrictEqual(read, generic.requestDeserialize(bytes));
  return { count, bytes };
});

const samples = new Map(
  requests.map(({ count }) => [count, { generic: [] as number[], reader: [] as number[] }]),
);
// Warm-up: both decoders optimised on every size before anything counts.
for (let i = 0; i < 20; i++) {
  for (const { bytes } of requests) {
    time(generic.requestDeserialize, bytes);
    time(reader.requestDeserialize, bytes);
  }
}
for (let round = 0; round < ROUNDS; round++) {
  for (const { count, bytes } of requests) {
    const sample = samples.get(count)!;
    // Alternate which goes first, so neither always follows the other's garbage.
    if (round % 2 === 0) {
      sample.generic.push(time(generic.requestDeserialize, bytes));
      sample.reader.push(time(reader.requestDeserialize, bytes));
    } else {
      sample.reader.push(time(reader.requestDeserialize, bytes));
      sample.generic.push(time(generic.requestDeserialize, bytes));
    }
  }
}

print(`GetSuggestionsRequest decode, median ms per request over ${ROUNDS} alternated rounds`);
print('trials   bytes   generic   reader   speed-up');
for (const { count, bytes } of requests) {
  const sample = samples.get(count)!;
  const genericMs = percentile(sample.generic, 50);
  const readerMs = percentile(sample.reader, 50);
  const columns = [
    String(count).padStart(6),
    String(bytes.length).padStart(7),
    genericMs.toFixed(4).padStart(9),
    readerMs.toFixed(4).padStart(8),
    `${(genericMs / readerMs).toFixed(2)}x`.padStart(10),
  ];
  print(columns.join(' '));
}
