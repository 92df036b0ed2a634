// The experiment service losing PostgreSQL behind a TCP proxy, as a scenario that returns what
// happened: `test/integration/store-outage.test.ts` asserts the behaviour, `bench/faults.ts` prints
// the figures beside their goals.
import { setTimeout as sleep } from 'node:timers/promises';
import { type ExperimentServer, startExperimentServer } from '../experiment-server.ts';
import { uniqueName } from '../kafka.ts';
import { type CallOutcome, createKatibCalls, type KatibCalls } from '../katib-calls.ts';
import { startTcpProxy, type TcpProxy } from '../ratelimit-tcp-proxy.ts';
import { reportStep } from './experiment-kafka.ts';

type Read = CallOutcome<{ observation_log: { metric_logs: { metric: { value: string } }[] } }>;

export const valuesOf = (answer: Read): number[] =>
  answer.reply!.observation_log.metric_logs.map((l) => Number(l.metric.value));

export interface StoreLossRig {
  readonly server: ExperimentServer;
  readonly katib: KatibCalls;
  readonly proxy: TcpProxy;
  close(): Promise<void>;
}

/**
 * An experiment service on PostgreSQL through a proxy that can be cut. Its read barrier waits
 * `readBarrierTimeoutMs` (a minute by default), so a read refused "at once" because the store is
 * known lost cannot be mistaken for one that waited for the barrier.
 */
export async function startStoreLossRig(
  infra: { KAFKA_BROKERS: string; POSTGRES_URL: string },
  readBarrierTimeoutMs = 60_000,
): Promise<StoreLossRig> {
  const url = new URL(infra.POSTGRES_URL);
  const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port) });
  url.port = String(proxy.port);
  const server = await startExperimentServer({
    KAFKA_BROKERS: infra.KAFKA_BROKERS,
    OBSERVATION_STORE: 'postgres',
    POSTGRES_URL: url.toString(),
    POSTGRES_SCHEMA: uniqueName('outage').replace(/-/g, '_'),
    PERSISTENCE_GROUP: uniqueName('outage-persistence'),
    EXPERIMENT_HTTP: 'false',
    EARLY_STOPPING_WORKER: 'false',
    READ_BARRIER_TIMEOUT_MS: String(readBarrierTimeoutMs),
  });
  const katib = createKatibCalls(server.address);
  return {
    server,
    katib,
    proxy,
    async close() {
      katib.close();
      await server.stop();
      await proxy.close();
    },
  };
}

export interface StoreLost {
  readonly before: Read;
  /** A report while PostgreSQL is lost (Kafka holds it: OK). */
  readonly acked: CallOutcome;
  /** The first read after the cut, and one more right after it. */
  readonly refused: Read;
  readonly later: Read;
  readonly dbManagerHealth: string;
  readonly suggestionHealth: string;
  readonly ackedAgain: CallOutcome;
  /** ms from restoring PostgreSQL to the first read that answered OK (NaN past the ceiling). */
  readonly backMs: number;
  readonly back: Read | undefined;
  readonly cutForMs: number;
}

export async function losePostgres(rig: StoreLossRig, recoveryCeilingMs = 60_000): Promise<StoreLost> {
  const { katib, proxy } = rig;
  const trial = uniqueName('pg');
  const read = (): Promise<Read> =>
    katib.call('DBManager', 'GetObservationLog', { trial_name: trial }, 120_000) as Promise<Read>;
  await reportStep(katib, trial, 1);
  const before = await read();

  proxy.cut();
  const cutAt = performance.now();
  const acked = await reportStep(katib, trial, 2);
  const refused = await read();
  const later = await read();
  await sleep(300);
  const dbManagerHealth = await katib.health('api.v1.beta1.DBManager');
  const suggestionHealth = await katib.health('api.v1.beta1.Suggestion');
  const ackedAgain = await reportStep(katib, trial, 3);

  proxy.restore();
  const restoredAt = performance.now();
  let back: Read | undefined;
  while (!back?.ok && performance.now() < restoredAt + recoveryCeilingMs) {
    back = await read();
    if (!back.ok) await sleep(50);
  }
  return {
    before,
    acked,
    refused,
    later,
    dbManagerHealth,
    suggestionHealth,
    ackedAgain,
    backMs: back?.ok ? performance.now() - restoredAt : Number.NaN,
    back,
    cutForMs: restoredAt - cutAt,
  };
}
