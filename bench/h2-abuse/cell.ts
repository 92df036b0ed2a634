// One pattern on one server, measured: the server is first let settle (its CPU back near its idle
// figure, the legitimate client answered SERVING), then the pattern runs on the attack thread while
// the legitimate client calls and /proc is sampled; the figures cover the pattern's own time.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { noOutcome } from './attack.ts';
import type { AttackThread } from './attack-thread.ts';
import {
  type LegitFigures,
  type LegitProbe,
  openLegitProbe,
  sampleRssPeak,
  treeCpuSeconds,
  treeRssMb,
} from './probe.ts';
import type { Cell } from './report.ts';
import type { ServerUnderTest } from './servers.ts';

export interface CellSettings {
  readonly seconds: number;
  readonly connections: number;
  readonly probeMs: number;
  /** How long after the pattern its "after" RSS is read. */
  readonly settleMs: number;
  /** The longest wait for the server to be quiet before a pattern. */
  readonly quietCapMs: number;
}

const QUIET_WINDOW_MS = 500;

/** The server's CPU use over `ms`, in cores. */
export async function coresOver(pid: number, ms: number): Promise<number> {
  const before = await treeCpuSeconds(pid);
  await sleep(ms);
  return ((await treeCpuSeconds(pid)) - before) / (ms / 1_000);
}

/** Waits until the server uses at most `quietCores` (a pattern before may have left it work); ms waited. */
async function untilQuiet(pid: number, quietCores: number, capMs: number): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < capMs && (await coresOver(pid, QUIET_WINDOW_MS)) > quietCores);
  return performance.now() - started;
}

export async function measureCell(
  attacker: AttackThread,
  server: ServerUnderTest,
  pattern: string,
  quietCores: number,
  settings: CellSettings,
): Promise<Cell> {
  const quietMs = await untilQuiet(server.pid, quietCores, settings.quietCapMs);
  const rssBefore = await treeRssMb(server.pid);
  let probe: LegitProbe;
  try {
    probe = await openLegitProbe(server.address, settings.probeMs);
  } catch (error) {
    // The server never answered before the pattern: a failure, and the pattern is not run.
    const message = (error as Error).message;
    const legit = { calls: 0, failures: 1, firstFailure: message, p50Ms: NaN, p99Ms: NaN, maxMs: NaN };
    const rssAfter = await treeRssMb(server.pid);
    return {
      ...{ pattern, server: server.name, quietMs, readyMs: NaN, legit, benchLoopP99Ms: NaN },
      ...{ rssBefore, rssPeak: Math.max(rssBefore, rssAfter), rssAfter, cpuSeconds: 0, seconds: 0 },
      outcome: noOutcome(),
    };
  }
  const cpuBefore = await treeCpuSeconds(server.pid);
  const peak = sampleRssPeak(server.pid);
  // The bench's own event loop delay: shows the legitimate latencies are the server's, not ours.
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const started = performance.now();
  let cpuSeconds = 0;
  let seconds = 0;
  let legit: LegitFigures | undefined;
  probe.start();
  const job = {
    pattern,
    target: server.target,
    seconds: settings.seconds,
    connections: settings.connections,
  };
  const outcome = await attacker.run(job, async () => {
    cpuSeconds = (await treeCpuSeconds(server.pid)) - cpuBefore;
    seconds = (performance.now() - started) / 1_000;
    legit = await probe.stop();
    loop.disable();
  });
  await sleep(settings.settleMs);
  const rssPeak = await peak.stop();
  const rssAfter = await treeRssMb(server.pid);
  return {
    ...{ pattern, server: server.name, quietMs, readyMs: probe.readyMs, legit: legit! },
    benchLoopP99Ms: loop.percentile(99) / 1e6,
    ...{ rssBefore, rssPeak, rssAfter, cpuSeconds, seconds, outcome },
  };
}
