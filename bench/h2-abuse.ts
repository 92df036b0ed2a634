// HTTP/2 abuse, side by side (issue 39): nine patterns (rapid reset, CONTINUATION flood, HPACK
// bomb, PING and SETTINGS floods, empty frames, streams held open, garbage, half-written prefaces;
// ./h2-abuse/patterns.ts), each BENCH_CONNECTIONS connections × BENCH_SECONDS against the
// experiment service and the rate limiter (both on the project's own HTTP/2 gRPC server) and
// envoyproxy/ratelimit (Go), one server at a time, all three started fresh for the run. Per pattern
// and server: the p99 of a legitimate Health/Check on a connection of its own every BENCH_PROBE_MS
// (and how many failed), RSS before / peak / after and the CPU time of the server's whole process
// tree, and what the server did to the abusive connections. Then a wait of BENCH_AFTER_SECONDS and
// each server's RSS against its start; the goals of the issue beside the figures.
// `npm run bench:h2-abuse` (servers of the bench profile: Kafka, Redis).
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { BENCH_BUILD, build } from '../scripts/build.ts';
import { kafkaSettings } from '../shared/bus/kafka-settings.ts';
import { int, list, readSettings, str } from '../shared/settings.ts';
import { type AttackThread, startAttackThread } from './h2-abuse/attack-thread.ts';
import { coresOver, measureCell, type PatternEnd, settledAfter } from './h2-abuse/cell.ts';
import { PATTERNS } from './h2-abuse/patterns.ts';
import { treeCpuSeconds, treeRssMb } from './h2-abuse/probe.ts';
import {
  type Cell,
  printGoals,
  printLegend,
  printSettled,
  printStops,
  printTable,
  type Settled,
} from './h2-abuse/report.ts';
import { type ServerUnderTest, startExperiment, startRateLimiters } from './h2-abuse/servers.ts';
import { ensureTool } from './ratelimit/side-by-side.ts';
import { serverEnvOf } from './server-env.ts';

const NAMES = PATTERNS.map((p) => p.name);
// Rapid reset last: the work it leaves the services (calls dispatched before their reset, each
// publishing or asking Redis) outlasts the pattern, and would be measured as the next patterns'.
// What it leaves behind is what "a minute after the last pattern" then measures.
const RUN_ORDER = [...NAMES.filter((name) => name !== 'rapid-reset'), 'rapid-reset'];
const settings = readSettings(
  {
    ...kafkaSettings,
    redisUrl: str('REDIS_URL', '127.0.0.1:26379'),
    patterns: list('BENCH_PATTERNS', RUN_ORDER, {
      allowed: `comma-separated, any of ${NAMES.join(', ')}`,
      valid: (name) => NAMES.includes(name),
    }),
    seconds: int('BENCH_SECONDS', 5, { min: 1, max: 60 }),
    connections: int('BENCH_CONNECTIONS', 4, { min: 1, max: 64 }),
    probeMs: int('BENCH_PROBE_MS', 20, { min: 1, max: 1_000 }),
    /** How long after a pattern its "after" RSS is read (its connections are closed by then). */
    settleMs: int('BENCH_SETTLE_MS', 1_500, { min: 0, max: 60_000 }),
    /** The longest wait, before a pattern, for the server's CPU to come back near its idle figure. */
    quietCapMs: int('BENCH_QUIET_CAP_MS', 5_000, { min: 0, max: 120_000 }),
    afterSeconds: int('BENCH_AFTER_SECONDS', 60, { min: 0, max: 600 }),
    streamsCap: int('BENCH_STREAMS_CAP', 25_000, { min: 1, max: 1_000_000 }),
    ratelimitWorkers: int('BENCH_RATELIMIT_WORKERS', availableParallelism(), { min: 1, max: 64 }),
    /** More settings of the experiment service, `NAME=value` separated by spaces (e.g. `REPORT_LAG_BUDGET_MS=0`). */
    serverEnv: str('BENCH_SERVER_ENV', '', 'NAME=value pairs separated by spaces'),
  },
  process.env,
);
const note = (line: string): void => void process.stderr.write(`[bench:h2-abuse] ${line}\n`);

async function main(): Promise<void> {
  const run = randomBytes(3).toString('hex');
  const reference = await ensureTool('service_cmd', 'github.com/envoyproxy/ratelimit/src/service_cmd@latest');
  note('building the services (scripts/build.ts) into .build/bench');
  build(BENCH_BUILD);
  const began = performance.now();
  const serverSettings = {
    kafkaBrokers: settings.kafkaBrokers.join(','),
    experimentEnv: serverEnvOf(settings.serverEnv),
    redisUrl: settings.redisUrl,
    ratelimitWorkers: settings.ratelimitWorkers,
    streamsCap: settings.streamsCap,
    reference,
    run,
  };
  const servers: ServerUnderTest[] = [];
  const cells: Cell[] = [];
  const settled: Settled[] = [];
  const stops: string[] = [];
  const lastWords: Array<[string, string]> = [];
  let attacker: AttackThread | undefined;
  try {
    attacker = await startAttackThread();
    servers.push(await startExperiment(serverSettings));
    servers.push(...(await startRateLimiters(serverSettings)));
    note(`servers up after ${((performance.now() - began) / 1_000).toFixed(0)} s`);
    await sleep(1_000);
    const start = new Map<string, { rss: number; published: number | undefined }>();
    // Quiet: at most twice the idle CPU use (and 0.05 core above it).
    const quietCores = new Map<string, number>();
    for (const server of servers) {
      const idle = await coresOver(server.pid, 2_000);
      quietCores.set(server.name, Math.max(2 * idle, idle + 0.05));
      const rss = await treeRssMb(server.pid);
      start.set(server.name, { rss, published: await server.published?.() });
      note(`${server.name}: idle ${idle.toFixed(3)} cores, RSS ${rss.toFixed(0)} MB`);
    }
    const lastEnd = new Map<string, PatternEnd>();
    let turn = 0;
    for (const pattern of settings.patterns) {
      // Each pattern starts with another server, so none always runs first.
      const shift = turn++ % servers.length;
      for (const server of [...servers.slice(shift), ...servers.slice(0, shift)]) {
        const cell = await measureCell(attacker, server, pattern, quietCores.get(server.name)!, settings);
        lastEnd.set(server.name, {
          at: Date.now() - settings.settleMs,
          cpuSeconds: await treeCpuSeconds(server.pid),
        });
        cells.push(cell);
        note(
          `${pattern} on ${server.name}: quiet after ${(cell.quietMs / 1_000).toFixed(1)} s, legit SERVING after ${(cell.readyMs / 1_000).toFixed(1)} s, p99 ${cell.legit.p99Ms.toFixed(1)} ms, ${cell.legit.failures} failed; RSS ${cell.rssBefore.toFixed(0)} → ${cell.rssPeak.toFixed(0)} → ${cell.rssAfter.toFixed(0)} MB`,
        );
      }
    }
    note(`waiting ${settings.afterSeconds} s after each server's last pattern`);
    for (const server of [...servers].sort((a, b) => lastEnd.get(a.name)!.at - lastEnd.get(b.name)!.at))
      settled.push(await settledAfter(server, lastEnd.get(server.name)!, start.get(server.name)!, settings));
  } finally {
    await attacker?.close();
    for (const server of servers) {
      const how = await server.stop().catch((error) => `failed to stop: ${error}`);
      stops.push(`${server.name} ${how}`);
      // A server that did not stop, or did not serve a minute after: what it logged last says why.
      const unwell =
        how.includes('SIGKILL') || settled.some((s) => s.server === server.name && Number.isNaN(s.servingMs));
      if (unwell && server.output !== undefined) lastWords.push([server.name, server.output()]);
    }
  }
  printTable(
    cells,
    `HTTP/2 abuse (issue 39): ${settings.connections} connections × ${settings.seconds} s per pattern and server, one server at a time; ` +
      `legit = grpc.health.v1.Health/Check every ${settings.probeMs} ms on its own connection; RSS and CPU over each server's whole process tree; ` +
      `"after" ${settings.settleMs} ms after the pattern; rate limiter with ${settings.ratelimitWorkers} decision units; run took ${((performance.now() - began) / 1_000).toFixed(0)} s`,
  );
  printLegend(settings.patterns.map((name) => PATTERNS.find((p) => p.name === name)!));
  printSettled(settled);
  printStops(stops, lastWords);
  printGoals(cells, settled);
}

await main();
