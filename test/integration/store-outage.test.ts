// PostgreSQL lost behind a TCP proxy while the experiment service runs: reports are still
// acknowledged (Kafka holds them), reads answer UNAVAILABLE at once naming PostgreSQL, health says
// which services are hurt, and persistence resumes by itself when the store returns, losing nothing.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type ExperimentServer, startExperimentServer } from '../helpers/experiment-server.ts';
import { uniqueName } from '../helpers/kafka.ts';
import { createKatibCalls, type KatibCalls } from '../helpers/katib-calls.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/ratelimit-tcp-proxy.ts';

const infra = inject('infra');
let proxy: TcpProxy;
let server: ExperimentServer;
let katib: KatibCalls;
const say = (line: string) => process.stdout.write(`[store-outage] ${line}\n`);

const logAt = (step: number) => ({
  time_stamp: new Date(Date.UTC(2026, 0, 1) + step * 1_000).toISOString(),
  metric: { name: 'loss', value: String(step) },
});
const report = (trial: string, step: number) =>
  katib.call(
    'DBManager',
    'ReportObservationLog',
    { trial_name: trial, observation_log: { metric_logs: [logAt(step)] } },
    10_000,
  );
const read = (trial: string) =>
  katib.call<{ observation_log: { metric_logs: { metric: { value: string } }[] } }>(
    'DBManager',
    'GetObservationLog',
    { trial_name: trial },
    10_000,
  );
const values = (answer: Awaited<ReturnType<typeof read>>) =>
  answer.reply!.observation_log.metric_logs.map((l) => Number(l.metric.value));

beforeAll(async () => {
  const url = new URL(infra.POSTGRES_URL);
  proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port) });
  url.port = String(proxy.port);
  server = await startExperimentServer({
    KAFKA_BROKERS: infra.KAFKA_BROKERS,
    OBSERVATION_STORE: 'postgres',
    POSTGRES_URL: url.toString(),
    POSTGRES_SCHEMA: uniqueName('outage').replace(/-/g, '_'),
    PERSISTENCE_GROUP: uniqueName('outage-persistence'),
    EXPERIMENT_HTTP: 'false',
    EARLY_STOPPING_WORKER: 'false',
  });
  katib = createKatibCalls(server.address);
});

afterAll(async () => {
  katib?.close();
  await server?.stop();
  await proxy?.close();
});

describe('PostgreSQL lost', () => {
  it('acknowledges reports, refuses reads at once with the reason, and persists everything when it returns', async () => {
    const trial = uniqueName('pg');
    expect((await report(trial, 1)).ok).toBe(true);
    expect(values(await read(trial))).toEqual([1]);

    proxy.cut();
    const cutAt = performance.now();
    const acked = await report(trial, 2);
    const refused = await read(trial);
    const later = await read(trial);
    await sleep(300);
    const dbHealth = await katib.health('api.v1.beta1.DBManager');
    const suggestionHealth = await katib.health('api.v1.beta1.Suggestion');
    say(
      `cut: report ${acked.code} ${Math.round(acked.ms)} ms; read ${refused.code} ${Math.round(refused.ms)} ms, again ${later.code} ${Math.round(later.ms)} ms ("${later.details}"); health DBManager ${dbHealth}, Suggestion ${suggestionHealth}`,
    );
    expect(acked.code).toBe('OK');
    for (const answer of [refused, later]) {
      expect(answer.code).toBe('UNAVAILABLE');
      expect(answer.details).toMatch(/PostgreSQL/);
    }
    expect(refused.ms).toBeLessThan(1_500);
    expect(later.ms).toBeLessThan(1_000);
    expect(dbHealth).toBe('NOT_SERVING');
    expect(suggestionHealth).toBe('SERVING');
    expect((await report(trial, 3)).ok).toBe(true);

    proxy.restore();
    const restoredAt = performance.now();
    let back: Awaited<ReturnType<typeof read>> | undefined;
    while (!back?.ok) {
      back = await read(trial);
      if (!back.ok) await sleep(50);
    }
    const backMs = performance.now() - restoredAt;
    say(
      `restored ${((restoredAt - cutAt) / 1000).toFixed(1)} s after the cut: first read OK ${Math.round(backMs)} ms later, logs ${JSON.stringify(values(back))}`,
    );
    expect(values(back)).toEqual([1, 2, 3]);
    expect(backMs).toBeLessThan(5_000);
    await expect.poll(() => katib.health('api.v1.beta1.DBManager'), { timeout: 10_000 }).toBe('SERVING');
  });
});
