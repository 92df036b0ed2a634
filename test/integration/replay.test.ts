import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TrialStatusChangedV1 } from '../../schemas/gen/events.ts';
import { loadCatalog } from '../../shared/avro/catalog.ts';
import type { OutgoingEvent } from '../../shared/bus/index.ts';
import { type Bus, createEventProducer, type EventProducer } from '../../shared/bus/index.ts';
import { openTestBus, testTopic, uniqueName } from '../helpers/kafka.ts';
import { waitFor } from '../helpers/wait-for.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const BROKERS = inject('infra').KAFKA_BROKERS;
const catalog = loadCatalog();

let bus: Bus;
let producer: EventProducer;

beforeAll(async () => {
  bus = openTestBus(BROKERS);
  producer = await createEventProducer(bus);
});

afterAll(async () => {
  await producer?.disconnect();
  await bus?.close();
});

const deleted = (trial: string, at = new Date()): OutgoingEvent => ({
  eventType: 'ObservationLogDeleted',
  key: trial,
  correlationId: randomUUID(),
  payload: { event_id: randomUUID(), occurred_at: at, trial_name: trial },
});

const reported = (trial: string): OutgoingEvent => ({
  eventType: 'ObservationLogReported',
  key: trial,
  correlationId: randomUUID(),
  payload: {
    event_id: randomUUID(),
    occurred_at: new Date('2026-05-01T12:00:00.125Z'),
    trial_name: trial,
    metric_logs: [
      {
        time_stamp: '2026-05-01T11:59:59.000000Z',
        metric_name: 'loss, "train"',
        value: '0.25',
      },
    ],
  },
});

const statusChanged = (
  trial: string,
  condition: TrialStatusChangedV1['condition'],
  message: string,
): OutgoingEvent => ({
  eventType: 'TrialStatusChanged',
  key: trial,
  correlationId: randomUUID(),
  payload: {
    event_id: randomUUID(),
    occurred_at: new Date('2026-05-01T12:00:00.125Z'),
    trial_name: trial,
    experiment_name: 'experiment-1',
    condition,
    reason: 'TrialEarlyStopped',
    message,
    source: 'early-stopping-worker',
  },
});

/** The payload as the CLI prints it: written and read with the catalog, then as JSON. */
const asPrinted = (event: OutgoingEvent): unknown =>
  JSON.parse(JSON.stringify(catalog.decode(catalog.encode(event.eventType, event.payload)).payload));

async function newTopic(prefix: string): Promise<string> {
  const declaration = testTopic(`replay-${prefix}`, 2);
  await bus.ensureTopics([declaration]);
  return declaration.name;
}

interface Running {
  stdout(): string;
  stderr(): string;
  kill(signal: NodeJS.Signals): void;
  readonly exited: Promise<number | null>;
}

function start(args: readonly string[], brokersVariable = BROKERS): Running {
  const child = spawn(process.execPath, ['services/replay/main.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, KAFKA_BROKERS: brokersVariable, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A CLI that does not end is killed before the test times out, so no child outlives the run.
    timeout: 90_000,
    killSignal: 'SIGKILL',
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  });
  return { stdout: () => out, stderr: () => err, kill: (signal) => child.kill(signal), exited };
}

async function run(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = start(args);
  const code = await child.exited;
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}

// biome-ignore lint/suspicious/noExplicitAny: JSON lines are checked field by field.
const lines = (stdout: string): any[] =>
  stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));

const eventIds = (stdout: string): string[] =>
  lines(stdout)
    .map((l) => l.event.event_id)
    .sort();
const idsOf = (events: readonly OutgoingEvent[]): string[] =>
  events.map((e) => (e.payload as { event_id: string }).event_id).sort();

describe('replay CLI', () => {
  it('prints every event from the beginning as JSON lines and exits 0', async () => {
    const topic = await newTopic('all');
    const before = Date.now();
    const events = [reported('trial-a'), deleted('trial-b'), reported('trial-c'), deleted('trial-a')];
    await producer.publish(topic, events);
    const { code, stdout, stderr } = await run(topic);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const printed = lines(stdout);
    expect(printed).toHaveLength(4);
    for (const line of printed) {
      const sent = events.find((e) => (e.payload as { event_id: string }).event_id === line.event.event_id)!;
      expect(Object.keys(line).join()).toBe(
        'topic,partition,offset,timestamp,key,eventType,schemaVersion,correlationId,event',
      );
      expect(line).toMatchObject({
        topic,
        key: sent.key,
        eventType: sent.eventType,
        schemaVersion: 1,
        correlationId: sent.correlationId,
      });
      expect([0, 1]).toContain(line.partition);
      expect(line.offset).toMatch(/^\d+$/);
      expect(Date.parse(line.timestamp)).toBeGreaterThanOrEqual(before - 1000);
      expect(line.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(line.event).toEqual(asPrinted(sent));
    }
    // Within a partition the partition's order.
    for (const partition of [0, 1]) {
      const offsets = printed.filter((l) => l.partition === partition).map((l) => Number(l.offset));
      expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    }
  });

  it('exits at once with nothing printed for an empty topic', async () => {
    const topic = await newTopic('empty');
    const { code, stdout } = await run(topic);
    expect(code).toBe(0);
    expect(stdout).toBe('');
  });

  it('--from prints only the events after the time, --until only those before it', async () => {
    const topic = await newTopic('time');
    const groupA = [deleted('t1'), deleted('t2'), deleted('t3')];
    const groupB = [deleted('t1'), deleted('t4'), deleted('t5')];
    await producer.publish(topic, groupA);
    await sleep(50);
    const between = new Date().toISOString();
    await sleep(50);
    await producer.publish(topic, groupB);

    const from = await run(topic, '--from', between);
    expect(from.code).toBe(0);
    expect(eventIds(from.stdout)).toEqual(idsOf(groupB));

    const until = await run(topic, '--until', between);
    expect(until.code).toBe(0);
    expect(eventIds(until.stdout)).toEqual(idsOf(groupA));
  });

  it('--key prints only the events with that key', async () => {
    const topic = await newTopic('key');
    const mine = [deleted('wanted'), reported('wanted'), deleted('wanted')];
    await producer.publish(topic, [deleted('other'), mine[0]!, reported('else'), mine[1]!, mine[2]!]);
    const { code, stdout } = await run(topic, '--key', 'wanted');
    expect(code).toBe(0);
    expect(eventIds(stdout)).toEqual(idsOf(mine));
    expect(lines(stdout).every((l) => l.key === 'wanted')).toBe(true);

    // --brokers wins over KAFKA_BROKERS.
    const child = start([topic, '--key', 'wanted', '--brokers', BROKERS], '127.0.0.1:1');
    expect(await child.exited).toBe(0);
    expect(eventIds(child.stdout())).toEqual(idsOf(mine));
  });

  it('--format csv prints the header and one RFC 4180 row per event', async () => {
    const topic = await newTopic('csv');
    const events = [reported('trial-x'), deleted('trial-y')];
    await producer.publish(topic, events);
    const { code, stdout } = await run(topic, '--format', 'csv');
    expect(code).toBe(0);
    const rows = stdout.split('\r\n');
    expect(rows.shift()).toBe('topic,partition,offset,timestamp,key,event_type,correlation_id,event');
    expect(rows.pop()).toBe('');
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      const m = /^([^,]*),(\d+),(\d+),([^,]*),([^,]*),([^,]*),([^,]*),"(.*)"$/.exec(row);
      expect(m, row).not.toBeNull();
      const [, rowTopic, , , timestamp, key, eventType, correlationId, eventJson] = m!;
      const event = JSON.parse(eventJson!.replaceAll('""', '"'));
      const sent = events.find((e) => (e.payload as { event_id: string }).event_id === event.event_id)!;
      expect({ rowTopic, key, eventType, correlationId }).toEqual({
        rowTopic: topic,
        key: sent.key,
        eventType: sent.eventType,
        correlationId: sent.correlationId,
      });
      expect(Number.isNaN(Date.parse(timestamp!))).toBe(false);
      expect(event).toEqual(asPrinted(sent));
    }
  });

  it('prints TrialStatusChanged events (enum as its symbol, time as ISO 8601) as JSON lines and CSV', async () => {
    const topic = await newTopic('trial-status');
    const events = [
      statusChanged('experiment-1-a', 'EARLYSTOPPED', 'Trial is early stopped, "loss" > 0.5'),
      statusChanged('experiment-1-b', 'SUCCEEDED', 'line one\nline two'),
    ];
    await producer.publish(topic, events);
    const sentFor = (event: { event_id: string }) =>
      events.find((e) => (e.payload as { event_id: string }).event_id === event.event_id)!;

    const jsonl = await run(topic, '--key', 'experiment-1-a');
    expect(jsonl.stderr).toBe('');
    expect(jsonl.code).toBe(0);
    expect(lines(jsonl.stdout)).toEqual([
      expect.objectContaining({
        topic,
        key: 'experiment-1-a',
        eventType: 'TrialStatusChanged',
        schemaVersion: 1,
      }),
    ]);
    expect(lines(jsonl.stdout)[0].event).toEqual({
      event_id: (events[0]!.payload as { event_id: string }).event_id,
      occurred_at: '2026-05-01T12:00:00.125Z',
      trial_name: 'experiment-1-a',
      experiment_name: 'experiment-1',
      condition: 'EARLYSTOPPED',
      reason: 'TrialEarlyStopped',
      message: 'Trial is early stopped, "loss" > 0.5',
      source: 'early-stopping-worker',
    });

    const csv = await run(topic, '--format', 'csv');
    expect(csv.code).toBe(0);
    // JSON escapes the second message's line break: each row stays on one line.
    const rows = csv.stdout.split('\r\n').slice(1, -1);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      const m = /^([^,]*),\d+,\d+,[^,]*,([^,]*),([^,]*),([^,]*),"(.*)"$/.exec(row);
      expect(m, row).not.toBeNull();
      const [, rowTopic, key, eventType, correlationId, eventJson] = m!;
      const event = JSON.parse(eventJson!.replaceAll('""', '"'));
      const sent = sentFor(event);
      expect({ rowTopic, key, eventType, correlationId }).toEqual({
        rowTopic: topic,
        key: sent.key,
        eventType: 'TrialStatusChanged',
        correlationId: sent.correlationId,
      });
      expect(event).toEqual(asPrinted(sent));
    }
  });

  it('prints a message that is not Avro with an error field, warns, and goes on', async () => {
    const topic = await newTopic('raw');
    const raw = await bus.client.createProducer();
    try {
      await raw.send([
        {
          topic,
          partition: 0,
          key: Buffer.from('raw-key'),
          value: Buffer.from('not avro, just text'),
          headers: {},
        },
      ]);
    } finally {
      await raw.close();
    }
    const good = deleted('after-raw');
    await producer.publish(topic, [good]);
    const { code, stdout, stderr } = await run(topic);
    expect(code).toBe(0);
    const printed = lines(stdout);
    expect(printed).toHaveLength(2);
    const bad = printed.find((l) => l.key === 'raw-key');
    expect(bad).toMatchObject({
      topic,
      partition: 0,
      error: expect.stringContaining('not an Avro single-object encoded value'),
      valueBase64: Buffer.from('not avro, just text').toString('base64'),
    });
    expect(bad).not.toHaveProperty('event');
    expect(printed.find((l) => l.key === 'after-raw')?.event.event_id).toBe(idsOf([good])[0]);
    expect(stderr).toContain('does not decode');
  });

  it('ends a partition whose last offset is a transaction marker', async () => {
    const topic = await newTopic('tx');
    const events = [deleted('tx-1'), deleted('tx-2')];
    await bus.client.sendInTransaction(
      events.map((e) => ({
        topic,
        partition: 1,
        key: Buffer.from(e.key),
        value: catalog.encode(e.eventType, e.payload),
        headers: {},
      })),
    );
    // The commit marker is written after commit() returns: wait until it is the partition's last offset.
    await waitFor('the commit marker', async () => {
      const offsets = await bus.watermarks(topic);
      return offsets.find((o) => o.partition === 1)?.high === 3n;
    });
    const { code, stdout } = await run(topic);
    expect(code).toBe(0);
    expect(eventIds(stdout)).toEqual(idsOf(events));
  });

  it('exits 2 naming a topic that does not exist', async () => {
    const topic = uniqueName('test.replay-missing');
    const { code, stdout, stderr } = await run(topic);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(`replay: topic "${topic}" does not exist`);
  });

  it('--follow prints events published after it started, and exits 0 on SIGTERM', async () => {
    const topic = await newTopic('follow');
    const early = deleted('early');
    await producer.publish(topic, [early]);
    const child = start([topic, '--follow']);
    try {
      await waitFor('the event published before start', () => lines(child.stdout()).length === 1);
      const late = deleted('late');
      await producer.publish(topic, [late]);
      await waitFor('the event published after start', () => lines(child.stdout()).length === 2);
      expect(eventIds(child.stdout())).toEqual(idsOf([early, late]));
    } finally {
      child.kill('SIGTERM');
    }
    expect(await child.exited).toBe(0);
    expect(child.stderr()).toBe('');
  });
});
