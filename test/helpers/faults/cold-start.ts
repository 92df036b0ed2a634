// The experiment service started beside a broker that has never seen it: its topics are created by
// the start itself and its consumer groups do not exist, the window in which Kafka answers
// NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS or UNKNOWN_TOPIC_OR_PARTITION for a moment. As a
// scenario that returns what happened: the startup tests assert it, bench/faults.ts counts it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startExperimentServer } from '../experiment-server.ts';
import { createKatibCalls } from '../katib-calls.ts';
import { startScratchKafka } from '../scratch-kafka.ts';
import { readBack, reportStep } from './experiment-kafka.ts';

export interface ColdStart {
  /** Whether the service reached SERVING by itself (within the give-up time and a margin). */
  readonly serving: boolean;
  readonly servingMs: number;
  /** Whether a report was acknowledged and read back after it. */
  readonly reportReadBack: boolean;
  /** Start steps and components the service had to try again, as its log says. */
  readonly retried: readonly string[];
  readonly output: string;
}

export async function coldStart(): Promise<ColdStart> {
  const broker = await startScratchKafka();
  const dir = mkdtempSync(join(tmpdir(), 'cold-start-'));
  const started = performance.now();
  try {
    const server = await startExperimentServer(
      { KAFKA_BROKERS: broker.brokers, SQLITE_FILE: join(dir, 'observations.db'), LOG_LEVEL: 'warn' },
      // The product's own settings (a read model rebuilt from the topics), and its give-up time.
      { replayHistory: true, readyTimeoutMs: 150_000 },
    ).catch((error: Error) => error);
    if (server instanceof Error)
      return {
        serving: false,
        servingMs: Number.NaN,
        reportReadBack: false,
        retried: [],
        output: server.message,
      };
    const servingMs = performance.now() - started;
    const katib = createKatibCalls(server.address);
    try {
      const acked = await reportStep(katib, 'cold-start-trial', 1);
      const values = acked.ok ? await readBack(katib, 'cold-start-trial', 120_000).catch(() => []) : [];
      const output = server.output();
      const retried = [
        ...output.matchAll(
          /"(?:component|step)":"([^"]+)"[^\n]*(?:could not start yet|not yet; trying again)/g,
        ),
      ].map((m) => m[1]!);
      return { serving: true, servingMs, reportReadBack: acked.ok && values.includes(1), retried, output };
    } finally {
      katib.close();
      await server.stop();
    }
  } finally {
    broker.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
