// One pattern on one server, measured: the server is first let settle (its CPU back near its idle
// figure, the legitimate client answered SERVING), then the pattern runs on the attack thread while
// the legitimate client calls and /proc is sampled; the figures cover the pattern's own time.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AttackThread } from './attack-thread.ts';
import { type LegitFigures, openLegitProbe, sampleRssPeak, treeCpuSeconds, treeRssMb } from './probe.ts';
import type { Cell, Settled } from './report.ts';
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
  const probe = await openLegitProbe(server.address, settings.probeMs);
  const publishedBefore = await server.published?.();
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
  const publishedAfter = await server.published?.();
  const published =
    publishedBefore === undefined || publishedAfter === undefined
      ? undefined
      : publishedAfter - publishedBefore;
  return {
    published,
    ...{
      pattern,
      server: server.name,
      quietMs,
      readyMs: probe.readyMs,
      notReady: probe.notReady,
      legit: legit!,
    },
    benchLoopP99Ms: loop.percentile(99) / 1e6,
    ...{ rssBefore, rssPeak, rssAfter, cpuSeconds, seconds, outcome },
  };
}

/** When a server's last pattern ended, and its CPU time then. */
export interface PatternEnd {
  readonly at: number;
  readonly cpuSeconds: number;
}

/**
 * `afterSeconds` after the server's last pattern: its RSS against the start's, the CPU it used in
 * that time (work the patterns left), whether a new client gets SERVING, and (the experiment
 * service) the events its handlers published since the start.
 */
export async function settledAfter(
  server: ServerUnderTest,
  end: PatternEnd,
  start: { readonly rss: number; readonly published: number | undefined },
  settings: { readonly afterSeconds: number; readonly probeMs: number },
): Promise<Settled> {
  const wait = end.at + settings.afterSeconds * 1_000 - Date.now();
  if (wait > 0) await sleep(wait);
  const rssEnd = await treeRssMb(server.pid);
  const cpuSeconds = (await treeCpuSeconds(server.pid)) - end.cpuSeconds;
  const afterSeconds = Math.round((Date.now() - end.at) / 1_000);
  const probe = await openLegitProbe(server.address, settings.probeMs);
  await probe.stop();
  const publishedEnd = await server.published?.();
  const published =
    start.published === undefined || publishedEnd === undefined ? undefined : publishedEnd - start.published;
  const servingMs = probe.readyMs;
  return { server: server.name, rssStart: start.rss, rssEnd, afterSeconds, cpuSeconds, servingMs, published };
}
