// The primary of RATELIMIT_WORKERS decision workers (node:cluster): it forks them (they share the
// gRPC and HTTP ports), owns the configuration source and hands every configuration it loads to
// each worker, serves the debug port for the whole instance (/stats summed over the workers,
// /metrics through prom-client's cluster aggregation), replaces a worker that dies, and on SIGTERM
// lets every worker drain before it stops.
import { spawn } from 'node:child_process';
import cluster, { type Worker } from 'node:cluster';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { Lifecycle } from '../../../shared/lifecycle.ts';
import type { Logger } from '../../../shared/logger.ts';
import { moduleFile } from '../../../shared/module-file.ts';
import { createDebugHandler } from '../adapters/http/debug-server.ts';
import { startHttpServer } from '../adapters/http/http-server.ts';
import { createConfigRuntime } from '../config-runtime.ts';
import { createStatsStore, SERVICE_STATS } from '../domain/stats.ts';
import type { RatelimitSettings } from '../settings/index.ts';
import { type FoundConfig, startConfigSource } from './config-source.ts';
import { isWorkerMessage, type PrimaryMessage } from './messages.ts';

const WORKER_ENTRY = moduleFile(import.meta.url, '../worker-main');
const PRIME_TIMEOUT_MS = 30_000;

/**
 * Loads the workers' modules once in a throwaway process with node's compile cache on, so that each
 * worker finds them compiled (TypeScript already stripped) and never loads the stripper: ~17 MB less
 * per worker. The environment for the workers (NODE_COMPILE_CACHE); {} when priming failed (the
 * workers then strip types themselves, which only costs that memory). Not needed when running the
 * build (dist/, JavaScript): nothing to strip.
 */
async function primeCompileCache(
  execArgv: readonly string[],
  logger: Logger,
): Promise<Record<string, string>> {
  if (WORKER_ENTRY.endsWith('.js')) return {};
  const directory = process.env.NODE_COMPILE_CACHE ?? join(tmpdir(), 'ratelimit-compile-cache');
  const env = { ...process.env, NODE_COMPILE_CACHE: directory };
  const code = `await import(${JSON.stringify(pathToFileURL(WORKER_ENTRY).href)});`;
  const outcome = await new Promise<string | undefined>((resolve) => {
    // Same flags as the workers (V8's code cache checks them), without the profilers'.
    const flags = execArgv.filter((a) => !/^--(cpu|heap)-prof/.test(a));
    const child = spawn(process.execPath, [...flags, '--input-type=module', '-e', code], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: PRIME_TIMEOUT_MS,
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-2_000);
    });
    child.on('error', (error) => resolve(error.message));
    child.on('exit', (code, signal) => resolve(code === 0 ? undefined : `exit ${code ?? signal}: ${stderr}`));
  });
  if (outcome === undefined) return { NODE_COMPILE_CACHE: directory };
  logger.warn(
    { directory, problem: outcome },
    'compile cache not primed; workers strip TypeScript themselves',
  );
  return {};
}

/** Counted once by the primary, not once per worker. */
const PRIMARY_STATS = new Set<string>([SERVICE_STATS.configLoadSuccess, SERVICE_STATS.configLoadError]);
const STATS_TIMEOUT_MS = 2_000;

export async function runPrimary(
  settings: RatelimitSettings,
  logger: Logger,
  lifecycle: Lifecycle,
  workerCount: number,
): Promise<void> {
  const stats = createStatsStore();
  const config = createConfigRuntime({ stats, logger });
  let latest: FoundConfig | undefined;
  let stopping = false;
  let failedStart: ((error: Error) => void) | undefined;
  const workers = new Set<Worker>();
  const readyWorkers = new Set<Worker>();
  const send = (worker: Worker, message: PrimaryMessage): void => {
    if (worker.isConnected()) worker.send(message);
  };

  let nextStatsId = 0;
  const waitingStats = new Map<number, (lines: Array<[string, number]>) => void>();

  const execArgv = [
    ...process.execArgv,
    ...settings.decisionProcessNodeOptions.split(/\s+/).filter((o) => o !== ''),
  ];
  cluster.setupPrimary({ exec: WORKER_ENTRY, execArgv });
  const workerEnv = await primeCompileCache(execArgv, logger);
  const fork = (): void => {
    const worker = cluster.fork(workerEnv);
    workers.add(worker);
    worker.on('message', (message: unknown) => {
      if (!isWorkerMessage(message)) return;
      if (message.rl === 'config?') {
        if (latest !== undefined) send(worker, { rl: 'config', found: latest });
      } else if (message.rl === 'ready') {
        readyWorkers.add(worker);
        logger.info({ worker: message.worker, pid: worker.process.pid }, 'worker ready');
      } else if (message.rl === 'stats') {
        waitingStats.get(message.id)?.(message.lines);
      }
    });
    worker.on('exit', (code, signal) => {
      workers.delete(worker);
      const wasReady = readyWorkers.delete(worker);
      if (stopping) return;
      if (!wasReady) {
        failedStart?.(
          new Error(`a decision worker exited before it was ready (code ${code}, signal ${signal})`),
        );
        return;
      }
      logger.error({ pid: worker.process.pid, code, signal }, 'decision worker died; starting another');
      fork();
    });
  };

  lifecycle.onStop('decision workers', async () => {
    stopping = true;
    const exits = [...workers].map(
      (worker) =>
        new Promise<void>((resolve) => (worker.isDead() ? resolve() : worker.once('exit', () => resolve()))),
    );
    for (const worker of workers) worker.process.kill('SIGTERM');
    await Promise.all(exits);
  });

  await startConfigSource({
    settings,
    logger,
    lifecycle,
    apply: (found) => {
      // Loaded here first: a configuration that does not load is not sent, and /rlconfig shows it.
      const loaded = config.apply(found.files, found.source, found.mergeDomainConfig);
      if (loaded === undefined) return undefined;
      latest = found;
      for (const worker of workers) send(worker, { rl: 'config', found });
      return loaded;
    },
  });

  const aggregator = new AggregatorRegistry();
  const instanceStats = async (): Promise<Iterable<[string, number]>> => {
    const asked = [...workers].filter((w) => w.isConnected());
    const replies = await Promise.all(
      asked.map(
        (worker) =>
          new Promise<Array<[string, number]>>((resolve) => {
            const id = nextStatsId++;
            const timer = setTimeout(() => {
              waitingStats.delete(id);
              resolve([]);
            }, STATS_TIMEOUT_MS);
            waitingStats.set(id, (lines) => {
              clearTimeout(timer);
              waitingStats.delete(id);
              resolve(lines);
            });
            send(worker, { rl: 'stats?', id });
          }),
      ),
    );
    const sums = new Map<string, number>();
    for (const lines of replies)
      for (const [name, value] of lines)
        if (!PRIMARY_STATS.has(name)) sums.set(name, (sums.get(name) ?? 0) + value);
    for (const counter of stats.counters())
      if (PRIMARY_STATS.has(counter.name)) sums.set(counter.name, counter.value);
    sums.set('ratelimit.workers', replies.length);
    return sums;
  };

  const started = new Promise<void>((resolve, reject) => {
    failedStart = reject;
    let forked = 0;
    const check = setInterval(() => {
      if (readyWorkers.size >= workerCount) {
        clearInterval(check);
        failedStart = undefined;
        resolve();
      }
    }, 20);
    check.unref();
    while (forked++ < workerCount) fork();
  });

  const debug = await startHttpServer({
    host: settings.debugHost,
    port: settings.debugPort,
    name: 'debug server',
    handler: createDebugHandler({
      config: config.current,
      stats: instanceStats,
      registry: {
        metrics: () => aggregator.clusterMetrics(),
        contentType: aggregator.contentType as Registry['contentType'],
      },
      logger,
    }),
    logger,
  });
  lifecycle.onStop('debug server', () => debug.stop());
  await started;
  logger.warn({ workers: workerCount }, 'decision workers ready');
}
