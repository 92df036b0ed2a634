// The gRPC adapter on an in-process server with a real client: the reply goes out only after the
// event is acknowledged, and nothing goes out when publishing fails.
import { type ServiceError, status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GetSuggestionsReply__Output } from '../../../../proto/gen/api/v1/beta1/GetSuggestionsReply.ts';
import type { SuggestionClient } from '../../../../proto/gen/api/v1/beta1/Suggestion.ts';
import type { Trial__Output } from '../../../../proto/gen/api/v1/beta1/Trial.ts';
import { loadCatalog } from '../../../../shared/avro/catalog.ts';
import type { OutgoingEvent } from '../../../../shared/bus/index.ts';
import { unavailable } from '../../../../shared/errors.ts';
import { type SuggestionServer, startSuggestionServer } from '../../../helpers/suggestion-server.ts';
import { experiment, trial } from './fixtures.ts';

const published: { topic: string; events: readonly OutgoingEvent[] }[] = [];
let failPublishing = false;
let suggestionServer: SuggestionServer;
let client: SuggestionClient;
const catalog = loadCatalog();

beforeAll(async () => {
  suggestionServer = await startSuggestionServer({
    producer: {
      async publish(topic, events) {
        if (failPublishing)
          throw unavailable('kafka: publishing to experiment.suggestions failed: broker down');
        // The payload must fit the schema, as the real producer checks.
        for (const e of events) catalog.encode(e.eventType, e.payload);
        published.push({ topic, events });
      },
    },
  });
  client = suggestionServer.client;
});

afterAll(async () => {
  await suggestionServer?.stop();
});

const get = (count: number, trials: Trial__Output[] = [], name = 'grpc-exp') =>
  new Promise<GetSuggestionsReply__Output>((resolve, reject) =>
    client.GetSuggestions(
      {
        experiment: experiment({ name, algorithm: 'random' }),
        trials,
        current_request_number: count,
        total_request_number: count,
      },
      (error, reply) => (error ? reject(error) : resolve(reply!)),
    ),
  );

describe('Suggestion gRPC adapter', () => {
  it('publishes SuggestionsIssued keyed by experiment, then answers', async () => {
    const reply = await get(2);
    expect(reply.parameter_assignments).toHaveLength(2);
    expect(published).toHaveLength(1);
    const [event] = published[0]!.events;
    expect(published[0]!.topic).toBe('experiment.suggestions');
    expect(event).toMatchObject({ eventType: 'SuggestionsIssued', key: 'grpc-exp' });
    expect(event!.payload).toMatchObject({
      occurred_at: 1_700_000_000_000,
      experiment_name: 'grpc-exp',
      algorithm_name: 'random',
    });
  });

  it('answers UNAVAILABLE and no suggestions when the event cannot be published', async () => {
    failPublishing = true;
    try {
      const error = await get(1).then(
        () => undefined,
        (e: ServiceError) => e,
      );
      expect(error?.code).toBe(status.UNAVAILABLE);
      expect(error?.details).toBe('kafka: publishing to experiment.suggestions failed: broker down');
    } finally {
      failPublishing = false;
    }
  });

  it("lists every trial in an experiment's first event, then only the trials that changed since", async () => {
    const t = (name: string, lr: string, condition: string) =>
      trial(name, { lr, layers: '2', batch_size: '32', optimizer: 'sgd' }, condition, { accuracy: '0.5' });
    const listed = () => {
      const payload = published.at(-1)!.events[0]!.payload as unknown as {
        trials: { name: string; condition: string }[];
        trials_complete: boolean;
        trial_count: number;
      };
      return [
        payload.trials_complete,
        payload.trial_count,
        payload.trials.map((x) => `${x.name}:${x.condition}`),
      ];
    };
    await get(1, [t('d-1', '0.01', 'SUCCEEDED'), t('d-2', '0.02', 'RUNNING')], 'delta-exp');
    expect(listed()).toEqual([true, 2, ['d-1:SUCCEEDED', 'd-2:RUNNING']]);
    await get(
      1,
      [t('d-1', '0.01', 'SUCCEEDED'), t('d-2', '0.02', 'SUCCEEDED'), t('d-3', '0.03', 'RUNNING')],
      'delta-exp',
    );
    expect(listed()).toEqual([false, 3, ['d-2:SUCCEEDED', 'd-3:RUNNING']]);
    // A failed publish is not remembered: the next event lists its changes again.
    failPublishing = true;
    await get(
      1,
      [t('d-1', '0.01', 'SUCCEEDED'), t('d-2', '0.02', 'SUCCEEDED'), t('d-3', '0.03', 'FAILED')],
      'delta-exp',
    ).catch(() => undefined);
    failPublishing = false;
    await get(
      1,
      [t('d-1', '0.01', 'SUCCEEDED'), t('d-2', '0.02', 'SUCCEEDED'), t('d-3', '0.03', 'FAILED')],
      'delta-exp',
    );
    expect(listed()).toEqual([false, 3, ['d-3:FAILED']]);
    // Another experiment starts complete.
    await get(1, [t('o-1', '0.01', 'RUNNING')], 'other-exp');
    expect(listed()).toEqual([true, 1, ['o-1:RUNNING']]);
  });

  it("carries the experiment's objectives and search space for the read model", async () => {
    const ask = (exp: ReturnType<typeof experiment>) =>
      new Promise<void>((resolve, reject) =>
        client.GetSuggestions({ experiment: exp, trials: [], current_request_number: 1 }, (error) =>
          error ? reject(error) : resolve(),
        ),
      );
    const payload = () => published.at(-1)!.events[0]!.payload as unknown as Record<string, unknown>;
    const twoObjectives = experiment({
      name: 'mo-exp',
      algorithm: 'nsga2',
      settings: { objectives: 'accuracy:maximize,latency_ms:MINIMIZE' },
    });
    twoObjectives.spec!.objective!.additional_metric_names = ['latency_ms'];
    await ask(twoObjectives);
    expect(payload().objectives).toEqual([
      { metric_name: 'accuracy', type: 'MAXIMIZE' },
      { metric_name: 'latency_ms', type: 'MINIMIZE' },
    ]);
    expect(payload().parameters).toEqual([
      {
        name: 'lr',
        parameter_type: 'DOUBLE',
        min: '0.0001',
        max: '0.1',
        step: '',
        list: [],
        distribution: 'LOG_UNIFORM',
      },
      { name: 'layers', parameter_type: 'INT', min: '1', max: '8', step: '', list: [], distribution: '' },
      {
        name: 'batch_size',
        parameter_type: 'DISCRETE',
        min: '',
        max: '',
        step: '',
        list: ['16', '32', '64', '128'],
        distribution: '',
      },
      {
        name: 'optimizer',
        parameter_type: 'CATEGORICAL',
        min: '',
        max: '',
        step: '',
        list: ['sgd', 'adam', 'rmsprop'],
        distribution: '',
      },
    ]);
    // Without the setting the experiment's objective is its only one: none listed.
    await ask(experiment({ name: 'so-exp', algorithm: 'random' }));
    expect(payload().objectives).toEqual([]);
  });
});
