// The gRPC adapter with a stateful algorithm (enas) on an in-process server and a real client: the
// controller comes from the store before the call, the next one is saved before SuggestionsIssued
// is published and the reply sent, and a store that cannot answer fails the call with nothing sent.
import { type ServiceError, status } from '@grpc/grpc-js';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Experiment__Output } from '../../../../proto/gen/api/v1/beta1/Experiment.ts';
import type { GetSuggestionsReply__Output } from '../../../../proto/gen/api/v1/beta1/GetSuggestionsReply.ts';
import type { SuggestionClient } from '../../../../proto/gen/api/v1/beta1/Suggestion.ts';
import type { Trial__Output } from '../../../../proto/gen/api/v1/beta1/Trial.ts';
import { createMemoryControllerStateStore } from '../../../../services/experiment/suggestion/adapters/memory-controller-state-store.ts';
import { decodeController } from '../../../../services/experiment/suggestion/nas/state-codec.ts';
import type { ControllerStateStore } from '../../../../services/experiment/suggestion/ports.ts';
import { ALGORITHMS } from '../../../../services/experiment/suggestion/registry.ts';
import { suggest } from '../../../../services/experiment/suggestion/suggest.ts';
import { unavailable } from '../../../../shared/errors.ts';
import { type SuggestionServer, startSuggestionServer } from '../../../helpers/suggestion-server.ts';
import { categorical, experiment, trial } from './fixtures.ts';

const steps: string[] = [];
const memory = createMemoryControllerStateStore();
let storeDown = false;
const store: ControllerStateStore = {
  async latest(name) {
    if (storeDown)
      throw unavailable('experiment.nas-controller-state was not read to its end within 5000 ms');
    steps.push(`latest ${name}`);
    return memory.latest(name);
  },
  async save(name, saved) {
    steps.push(`save ${name}`);
    return memory.save(name, saved);
  },
};
let suggestionServer: SuggestionServer;
const registry = new Registry();
let client: SuggestionClient;

const nas = (name: string): Experiment__Output => {
  const exp = experiment({ name, algorithm: 'enas', parameters: [], settings: { random_state: '1' } });
  return {
    ...exp,
    spec: {
      ...exp.spec!,
      nas_config: {
        graph_config: { num_layers: 3, input_sizes: [32], output_sizes: [10] },
        operations: {
          operation: [
            {
              operation_type: 'convolution',
              parameter_specs: { parameters: [categorical('filter_size', ['3', '5'])] },
            },
          ],
        },
      },
    },
  };
};

beforeAll(async () => {
  suggestionServer = await startSuggestionServer({
    controllerStates: store,
    registry,
    producer: {
      async publish(topic, events) {
        steps.push(`publish ${topic} ${events.map((e) => e.key).join(',')}`);
      },
    },
  });
  client = suggestionServer.client;
});

afterAll(async () => {
  await suggestionServer?.stop();
});

const get = (exp: Experiment__Output, trials: Trial__Output[], count: number) =>
  new Promise<GetSuggestionsReply__Output>((resolve, reject) =>
    client.GetSuggestions(
      { experiment: exp, trials, current_request_number: count, total_request_number: trials.length + count },
      (error, reply) => (error ? reject(error) : resolve(reply!)),
    ),
  );

describe('Suggestion gRPC adapter, enas', () => {
  it('reads the stored controller, saves the next one, then publishes and answers', async () => {
    const exp = nas('grpc-enas');
    const first = await get(exp, [], 2);
    expect(steps).toEqual(['latest grpc-enas', 'save grpc-enas', 'publish experiment.suggestions grpc-enas']);
    const trials = first.parameter_assignments.map((set, i) =>
      trial(`t${i}`, Object.fromEntries(set.assignments.map((a) => [a.name, a.value])), 'SUCCEEDED', {
        accuracy: String(0.5 + i / 10),
      }),
    );
    const stored = await memory.latest('grpc-enas');
    const second = await get(exp, trials, 2);
    // The same answer as the use case given the stored state: the adapter passed it through.
    const expected = suggest(
      { experiment: exp, trials, current_request_number: 2, total_request_number: 4 },
      ALGORITHMS,
      stored,
    );
    expect(second.parameter_assignments.map((s) => s.assignments.map((a) => a.value))).toEqual(
      expected.reply.parameter_assignments!.map((s) => s.assignments!.map((a) => a.value)),
    );
    expect(memory.saves.map((s) => [s.experiment, s.algorithmName, s.trialCount])).toEqual([
      ['grpc-enas', 'enas', 0],
      ['grpc-enas', 'enas', 2],
    ]);
    expect(decodeController(memory.saves[1]!.state).history).toHaveLength(1);
    const saves = await registry.getSingleMetric('experiment_suggestion_controller_state_saves_total')!.get();
    expect(saves.values).toEqual([{ labels: { algorithm: 'enas' }, value: 2 }]);
  });

  it('answers UNAVAILABLE and publishes nothing when the store cannot answer', async () => {
    steps.length = 0;
    storeDown = true;
    try {
      const error = await get(nas('grpc-enas-down'), [], 1).then(
        () => undefined,
        (e: ServiceError) => e,
      );
      expect(error?.code).toBe(status.UNAVAILABLE);
      expect(error?.details).toBe('experiment.nas-controller-state was not read to its end within 5000 ms');
      expect(steps).toEqual([]);
    } finally {
      storeDown = false;
    }
  });
});
