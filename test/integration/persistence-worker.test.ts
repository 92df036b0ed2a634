import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kafka } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startPersistenceWorker } from '../../services/experiment/adapters/persistence-worker.ts';
import { openSqliteObservationStore } from '../../services/experiment/adapters/sqlite-observation-store.ts';
import type { ObservationStore } from '../../services/experiment/ports.ts';
import { loadCatalog } from '../../shared/avro/catalog.ts';
import type { Worker } from '../../shared/bus/consumer.ts';
import { createKafka } from '../../shared/bus/kafka.ts';
import { createEventProducer, type EventProducer, type OutgoingEvent } from '../../shared/bus/producer.ts';
import { dlqOf, TOPICS } from '../../shared/bus/topics.ts';
import { silentLogger } from '../../shared/logger.ts';
import { commitTopicEnds, createTopics, uniqueName } from '../helpers/kafka.ts';
import { waitFor } from '../helpers/wait-for.ts';

const BROKERS = inject('infra').KAFKA_BROKERS;
const catalog = loadCatalog();
const folder = mkdtempSync(join(tmpdir(), 'persistence-worker-'));

let kafka: Kafka;
let producer: EventProducer;
let store: ObservationStore;
let worker: Worker;

beforeAll(async () => {
  kafka = createKafka({
    brokers: BROKERS.split(','),
    clientId: 'persistence-worker-test',
    logger: silentLogger,
  });
  const topics = [TOPICS.observations, TOPICS.trialStatus];
  await createTopics(kafka, ...topics, ...topics.map(dlqOf));
  producer = await createEventProducer({ kafka, catalog });
  store = openSqliteObservationStore({ file: join(folder, 'observations.db') });
  // experiment.observations holds every other test's reports: the fresh group starts at its
  // current end (setting offsets joins the group: seconds per topic, so only where it pays).
  const groupId = uniqueName('test-persistence');
  const admin = kafka.admin();
  await admin.connect();
  try {
    await commitTopicEnds(admin, groupId, [TOPICS.observations.name]);
  } finally {
    await admin.disconnect();
  }
  worker = await startPersistenceWorker({
    kafka,
    catalog,
    producer,
    store,
    groupId,
    sessionTimeoutMs: 10_000,
    logger: silentLogger,
  });
  await worker.joined;
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await producer?.disconnect();
  await store?.close();
  rmSync(folder, { recursive: true, force: true });
});

/** `key` decides the partition: events with one key are applied in publication order. */
const statusChanged = (
  trial: string,
  condition: string,
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

describe('persistence worker', () => {
  it('records the latest status from experiment.trial-status, skipping a redelivered one', async () => {
    const trial = uniqueName('trial');
    const running = statusChanged(trial, 'RUNNING');
    const runningId = (running.payload as { event_id: string }).event_id;
    // A status of another trial under the same key comes last: once it is stored, so is the rest.
    const sentinel = uniqueName('sentinel');
    await producer.publish(TOPICS.trialStatus.name, [
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
    await producer.publish(TOPICS.observations.name, [
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
