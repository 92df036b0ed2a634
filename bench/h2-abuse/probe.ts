// What the bench measures beside each pattern: a legitimate client (grpc.health.v1.Health/Check on
// a connection of its own, one call every `intervalMs` on a fixed schedule, so a stalled server
// shows as slow calls, not as fewer calls), and the server's whole process tree from /proc: RSS
// (each process counts every thread of it) and CPU time (utime + stime).

import { setTimeout as sleep } from 'node:timers/promises';
import { credentials, type ServiceError } from '@grpc/grpc-js';
import type { HealthClient } from '../../proto/gen/grpc/health/v1/Health.ts';
import type { HealthCheckResponse__Output } from '../../proto/gen/grpc/health/v1/HealthCheckResponse.ts';
import { HEALTH_PROTO, loadPackageDefinition, lookupService } from '../../shared/grpc.ts';
import { CLK_TCK, cpuTicks, processTree, rssMb } from '../ratelimit/process-stats.ts';
import { percentile } from '../stats.ts';

const Health = lookupService(loadPackageDefinition([HEALTH_PROTO]), 'grpc.health.v1.Health');
const CALL_DEADLINE_MS = 5_000;
/** How long the legitimate client waits for a first SERVING (a server still busy with the last pattern). */
const WARM_UP_MS = 10_000;

export interface LegitFigures {
  readonly calls: number;
  /** Calls that did not answer SERVING (an error, a deadline, another status). */
  readonly failures: number;
  readonly firstFailure: string | undefined;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export interface LegitProbe {
  /** From the connection's start until the first SERVING, ms; NaN when none came in WARM_UP_MS. */
  readonly readyMs: number;
  /** What the server answered last in the warm-up when it never said SERVING. */
  readonly notReady: string | undefined;
  /** Starts calling on the schedule. */
  start(): void;
  /** Stops calling, waits for the calls under way, closes the connection. */
  stop(): Promise<LegitFigures>;
}

function check(client: HealthClient): Promise<string> {
  return new Promise((resolve) =>
    client.Check(
      { service: '' },
      { deadline: Date.now() + CALL_DEADLINE_MS },
      (error: ServiceError | null, reply?: HealthCheckResponse__Output) =>
        resolve(error ? `${error.code} ${error.details}` : (reply?.status ?? 'no reply')),
    ),
  );
}

/**
 * Connects (its own connection, not shared with any other client) and waits for a first SERVING,
 * at most WARM_UP_MS: a server still busy with the last pattern then goes into this one as it is
 * (readyMs NaN, `notReady` says what it answered), and the calls that fail count.
 */
export async function openLegitProbe(address: string, intervalMs: number): Promise<LegitProbe> {
  const client = new Health(address, credentials.createInsecure(), {
    'grpc.use_local_subchannel_pool': 1,
    'grpc.initial_reconnect_backoff_ms': 50,
    'grpc.max_reconnect_backoff_ms': 200,
  }) as unknown as HealthClient;
  const opened = performance.now();
  const warmUpEnd = Date.now() + WARM_UP_MS;
  let status = await check(client);
  while (status !== 'SERVING' && Date.now() < warmUpEnd) {
    await sleep(50);
    status = await check(client);
  }
  const readyMs = status === 'SERVING' ? performance.now() - opened : Number.NaN;
  const latencies: number[] = [];
  const failures: string[] = [];
  const underWay = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  const call = (): void => {
    const started = performance.now();
    const done = check(client).then((status) => {
      latencies.push(performance.now() - started);
      if (status !== 'SERVING') failures.push(status);
    });
    underWay.add(done);
    void done.then(() => underWay.delete(done));
  };
  return {
    readyMs,
    notReady: status === 'SERVING' ? undefined : status,
    start() {
      call();
      timer = setInterval(call, intervalMs);
    },
    async stop() {
      clearInterval(timer);
      await Promise.all(underWay);
      client.close();
      return {
        calls: latencies.length,
        failures: failures.length,
        firstFailure: failures[0],
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
        maxMs: Math.max(...latencies),
      };
    },
  };
}

/** RSS of the process and its descendants now, MB (each process: every thread of it). */
export async function treeRssMb(pid: number): Promise<number> {
  const each = await Promise.all((await processTree(pid)).map(rssMb));
  return each.reduce((a, b) => a + b, 0);
}

/** CPU time (user + system) of the process and its descendants so far, seconds. */
export async function treeCpuSeconds(pid: number): Promise<number> {
  return (await cpuTicks(await processTree(pid))) / CLK_TCK;
}

/** Samples the tree's RSS every `everyMs` until stopped; the largest sample. */
export function sampleRssPeak(pid: number, everyMs = 100): { stop(): Promise<number> } {
  let peak = 0;
  let sampling = true;
  const loop = (async () => {
    while (sampling) {
      peak = Math.max(peak, await treeRssMb(pid));
      await sleep(everyMs);
    }
  })();
  return {
    async stop() {
      sampling = false;
      await loop;
      return Math.max(peak, await treeRssMb(pid));
    },
  };
}
