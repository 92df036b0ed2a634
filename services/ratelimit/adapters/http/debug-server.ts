// The debug listener (DEBUG_PORT, default 6070): `/` lists the endpoints, /rlconfig dumps the
// configuration in force, /stats the counters, /metrics the Prometheus text, and in place of Go's
// pprof a CPU profile (node:inspector, a .cpuprofile for Chrome DevTools) and a V8 heap snapshot.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Session } from 'node:inspector/promises';
import { getHeapSnapshot } from 'node:v8';
import type { Registry } from 'prom-client';
import { toAppError } from '../../../../shared/errors.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { RateLimitConfig } from '../../config/index.ts';
import type { CountersPage } from '../../counters-view.ts';

export const DEBUG_ENDPOINTS: Readonly<Record<string, string>> = {
  '/debug/pprof/': 'root of various pprof endpoints. hit for help.',
  '/debug/pprof/profile':
    'CPU profiling endpoint (?seconds=N, default 30): a .cpuprofile for Chrome DevTools',
  '/debug/pprof/heap': 'heap endpoint: a V8 .heapsnapshot for Chrome DevTools',
  '/counters':
    'counters of a domain in use, as JSON (?domain=D, &key=k1=v1,... for one descriptor, &limit=N and &cursor=C to page)',
  '/metrics': 'Prometheus metrics',
  '/rlconfig': 'print out the currently loaded configuration for debugging',
  '/stats': 'print out stats',
};

const MAX_PROFILE_SECONDS = 300;

export function createDebugHandler(deps: {
  config: () => RateLimitConfig | undefined;
  /** /stats: every counter and gauge of the instance (all its decision units). */
  stats: () => Promise<Iterable<[string, number]>>;
  /** /metrics: the instance's Prometheus text. */
  registry: Pick<Registry, 'metrics' | 'contentType'>;
  /** /counters: the counters of a domain's limits, read from the store (../../counters-view.ts). */
  counters?: (query: URLSearchParams) => Promise<CountersPage>;
  logger: Logger;
}): (req: IncomingMessage, res: ServerResponse) => void {
  const { registry, logger } = deps;
  let profiling = false;
  const text = (res: ServerResponse, status: number, body: string): void => {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(body);
  };

  const profile = async (url: URL, res: ServerResponse): Promise<void> => {
    const seconds = Number(url.searchParams.get('seconds') ?? '30');
    if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_PROFILE_SECONDS)
      return text(res, 400, `seconds must be an integer from 1 to ${MAX_PROFILE_SECONDS}\n`);
    if (profiling) return text(res, 409, 'a CPU profile is already being taken\n');
    profiling = true;
    const session = new Session();
    session.connect();
    try {
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      const { profile: result } = await session.post('Profiler.stop');
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-disposition': `attachment; filename="ratelimit-${Date.now()}.cpuprofile"`,
      });
      res.end(JSON.stringify(result));
    } finally {
      session.disconnect();
      profiling = false;
    }
  };

  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://debug');
    switch (url.pathname) {
      case '/rlconfig': {
        const config = deps.config();
        res.setHeader('x-ratelimit-config-version', config?.version ?? '');
        return text(res, 200, config === undefined ? '' : `# version: ${config.version}\n${config.dump()}`);
      }
      case '/stats':
        deps.stats().then(
          (found) => {
            const lines: string[] = [];
            for (const [name, value] of found) lines.push(`${name}: ${value}`);
            text(res, 200, `${lines.sort().join('\n')}\n`);
          },
          (error: unknown) => {
            logger.error({ err: error }, 'collecting stats failed');
            text(res, 500, 'collecting stats failed\n');
          },
        );
        return;
      case '/counters': {
        const json = (status: number, body: unknown): void => {
          res.writeHead(status, { 'content-type': 'application/json' }).end(`${JSON.stringify(body)}\n`);
        };
        if (deps.counters === undefined) return json(404, { error: 'no counter store in this process' });
        deps.counters(url.searchParams).then(
          (page) => json(200, page),
          (thrown: unknown) => {
            const error = toAppError(thrown);
            if (error.httpStatus >= 500) logger.error({ err: thrown }, 'reading counters failed');
            json(error.httpStatus, { error: error.message });
          },
        );
        return;
      }
      case '/metrics':
        registry.metrics().then(
          (body) => res.writeHead(200, { 'content-type': registry.contentType }).end(body),
          (error: unknown) => {
            logger.error({ err: error }, 'collecting metrics failed');
            text(res, 500, 'collecting metrics failed\n');
          },
        );
        return;
      case '/debug/pprof/profile':
        profile(url, res).catch((error: unknown) => {
          logger.error({ err: error }, 'CPU profile failed');
          if (!res.headersSent) text(res, 500, `CPU profile failed: ${(error as Error).message}\n`);
        });
        return;
      case '/debug/pprof/heap': {
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-disposition': `attachment; filename="ratelimit-${Date.now()}.heapsnapshot"`,
        });
        getHeapSnapshot().pipe(res);
        return;
      }
      case '/debug/pprof/':
        return text(
          res,
          200,
          'profile: CPU profile (?seconds=N), open in Chrome DevTools > Performance\nheap: V8 heap snapshot, open in Chrome DevTools > Memory\n',
        );
      default: {
        const listing = Object.keys(DEBUG_ENDPOINTS)
          .sort()
          .map((path) => `${path}: ${DEBUG_ENDPOINTS[path]}\n`)
          .join('');
        return text(res, 200, listing);
      }
    }
  };
}
