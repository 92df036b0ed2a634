// The gRPC adapter on an in-process server with a real client: the reply goes out only after the
// event is acknowledged, and nothing goes out when publishing fails.
import { type ServiceError, status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GetSuggestionsReply__Output } from '../../../../proto/gen/api/v1/beta1/GetSuggestionsReply.ts';
import type { SuggestionClient } from '../../../../proto/gen/api/v1/beta1/Suggestion.ts';
import { loadCatalog } from '../../../../shared/avro/catalog.ts';
import type { OutgoingEvent } from '../../../../shared/bus/events.ts';
import { unavailable } from '../../../../shared/errors.ts';
import { type SuggestionServer, startSuggestionServer } from '../../../helpers/suggestion-server.ts';
import { experiment } from './fixtures.ts';

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

const get = (count: number) =>
  new Promise<GetSuggestionsReply__Output>((resolve, reject) =>
    client.GetSuggestions(
      {
        experiment: experiment({ name: 'grpc-exp', algorithm: 'random' }),
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
});
