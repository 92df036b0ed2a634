import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TrialStatusChangedV1 } from '../../schemas/gen/events.ts';
import type { ObservationStore } from '../../services/experiment/common/ports.ts';
import { startPersistenceConsumer } from '../../services/experiment/dbmanager/adapters/persistence-consumer.ts';
import { openSqliteObservationStore } from '../../services/experiment/dbmanager/adapters/sqlite-observation-store.ts';
import type { OutgoingEvent } from '../../shared/bus/index.ts';
import {
  type Bus,
  createEventProducer,
  dlqOf,
  type EventConsumer,
  type EventProducer,
} from '../../shared/bus/index.ts';
import { fileTopics } from '../helpers/file-topics.ts';
import { openTestBus, uniqueName } from '../helpers/kafka.ts';
import { memoryLogger, repeatedKeys } from '../helpers/memory-logger.ts';
import { waitFor } from '../helpers/wait-for.ts';

const BROKERS = inject('infra').KAFKA_BROKERS;
// The file's own topics (test/helpers/file-topics.ts): no other file writes them.
const own = fileTopics();
const folder = mkdtempSync(join(tmpdir(), 'persistence-consumer-'));

let bus: Bus;
let producer: EventProducer;
let store: ObservationStore;
let consumer: EventConsumer;
const logs = memoryLogger();

beforeAll(async () => {
  bus = openTestBus(BROKERS);
  const topics = [own.observations, own.trialStatus];
  await bus.ensureTopics([...topics, ...topics.map(dlqOf)]);
  producer = await createEventProducer(bus);
  store = openSqliteObservationStore({ file: join(folder, 'observations.db') });
  const groupId = uniqueName('test-persistence');
  consumer = await startPersistenceConsumer({
    bus,
    producer,
    store,
    topics: own,
    groupId,
    sessionTimeoutMs: 10_000,
    logger: logs.logger,
  });
  await consumer.joined;
}, 60_000);

afterAll(async () => {
  // Each key once in every line the consumer wrote (its 'component' was written twice before).
  expect(logs.raw.length).toBeGreaterThan(0);
  expect(logs.raw.flatMap(repeatedKeys)).toEqual([]);
  await consumer?.stop();
  await producer?.disconnect();
  await store?.close();
  await bus?.close();
  rmSync(folder, { recursive: true, force: true });
});

/** `key` decides the partition: events with one key are applied in publication order. */
const statusChanged = (
  trial: string,
  condition: TrialStatusChangedV1['condition'],
  options: { eventId?: string; key?: string } = {},
): OutgoingEvent => ({
  eventType: 'TrialStatusChanged',
  key: options.key ?? trial,
  correlationId: randomUUID(),
  payload: {
    event_id: options.eventId ?? randomUUID(),
    occurred_at: new Date('2026-05-01T12:00:00.125Z'),
    trial_name: trial,
    experiment_name: 'experiment',
    condition,
    reason: `Trial${condition}`,
    message: `trial is ${condition}`,
    source: 'SetTrialStatus',
  },
});

describe('persistence consumer', () => {
  it('records the latest status from experiment.trial-status, skipping a redelivered one', async () => {
    const trial = uniqueName('trial');
    const running = statusChanged(trial, 'RUNNING');
    const runningId = (running.payload as { event_id: string }).event_id;
    // A status of another trial under the same key comes last: once it is stored, so is the rest.
    const sentinel = uniqueName('sentinel');
    await producer.publish(own.trialStatus.name, [
      running,
      statusChanged(trial, 'EARLYSTOPPED'),
      statusChanged(trial, 'RUNNING', { eventId: runningId }),
      statusChanged(sentinel, 'SUCCEEDED', { key: trial }),
    ]);
    await waitFor('the sentinel status', () => store.knowsTrial(sentinel));
    expect(await store.trialStatus(trial)).toEqual({
      trialName: trial,
      condition: 'EARLYSTOPPED',
      reason: 'TrialEARLYSTOPPED',
      message: 'trial is EARLYSTOPPED',
      changedAtMs: Date.parse('2026-05-01T12:00:00.125Z'),
    });
  });

  it('still applies experiment.observations', async () => {
    const trial = uniqueName('trial');
    await producer.publish(own.observations.name, [
      {
        eventType: 'ObservationLogReported',
        key: trial,
        correlationId: randomUUID(),
        payload: {
          event_id: randomUUID(),
          occurred_at: new Date(),
          trial_name: trial,
          metric_logs: [{ time_stamp: '2026-05-01T11:59:59.000000Z', metric_name: 'loss', value: '0.25' }],
        },
      },
    ]);
    await waitFor('the report', () => store.knowsTrial(trial));
    expect(await store.query({ trialName: trial })).toEqual([
      { time: '2026-05-01T11:59:59.000000Z', metricName: 'loss', value: '0.25' },
    ]);
    expect(await store.trialStatus(trial)).toBeUndefined();
  });
});
