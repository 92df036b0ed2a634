// The experiment service's HTTP listener: every api.v1.beta1 call as POST /<service>/<method> through
// the gRPC handlers (shared/grpc-http.ts), read endpoints over the read model and the observation
// store (JSON, or CSV with ?format=csv), live streams (SSE), and the web page with its assets.
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { AppError, invalidArgument, notFound, toAppError } from '../../../../shared/errors.ts';
import { errorAnswer, type GrpcJsonGateway } from '../../../../shared/grpc-http.ts';
import { type HttpListener, startHttpListener } from '../../../../shared/http-listener.ts';
import type { Logger } from '../../../../shared/logger.ts';
import { toQuery } from '../../common/observation-query.ts';
import type { ObservationStore, ReadModel } from '../../common/ports.ts';
import { toCsv } from '../csv.ts';
import type { LiveHub } from './live-stream.ts';

export interface HttpApiDeps {
  readonly gateway: GrpcJsonGateway;
  readonly readModel: ReadModel;
  readonly store: Pick<ObservationStore, 'query'>;
  readonly hub: LiveHub;
  readonly logger: Logger;
  readonly maxBodyBytes: number;
  /** Files served as they are: URL path → absolute file and content type. */
  readonly assets: ReadonlyMap<string, { readonly file: string; readonly type: string }>;
}

export type RunningHttpApi = HttpListener;

type Format = 'json' | 'csv';

/** A refusal that is about HTTP itself (method, media type, size) rather than the request's content. */
class HttpReply extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.headers = headers;
  }
}

const json = (res: ServerResponse, status: number, body: unknown): void => {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
};

const csv = (res: ServerResponse, name: string, text: string): void => {
  res.writeHead(200, {
    'content-type': 'text/csv; charset=utf-8',
    'content-disposition': `inline; filename="${name.replace(/[^A-Za-z0-9._-]/g, '_')}.csv"`,
    'cache-control': 'no-store',
  });
  res.end(text);
};

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new HttpReply(413, `body: larger than ${limit} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Query parameters, refusing any the endpoint does not know. */
function params(url: URL, allowed: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of url.searchParams) {
    if (!allowed.includes(key))
      throw invalidArgument(`query parameter ${key}: unknown (allowed: ${allowed.join(', ') || 'none'})`);
    if (out.has(key)) throw invalidArgument(`query parameter ${key}: given more than once`);
    out.set(key, value);
  }
  return out;
}

function formatOf(query: Map<string, string>, req: IncomingMessage): Format {
  const given = query.get('format');
  if (given === undefined) return (req.headers.accept ?? '').includes('text/csv') ? 'csv' : 'json';
  if (given === 'json' || given === 'csv') return given;
  throw invalidArgument(`query parameter format: ${JSON.stringify(given)} is not json or csv`);
}

const decode = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw invalidArgument(`path: ${JSON.stringify(segment)} is not valid percent-encoding`);
  }
};

/** Katib's GetObservationLog filters from ?metric, ?from and ?to; errors name the query parameter. */
function observationQueryOf(trialName: string, query: Map<string, string>) {
  try {
    return toQuery({
      trial_name: trialName,
      metric_name: query.get('metric') ?? '',
      start_time: query.get('from') ?? '',
      end_time: query.get('to') ?? '',
    });
  } catch (error) {
    const message = (error as Error).message
      .replace(/^start_time:/, 'query parameter from:')
      .replace(/^end_time:/, 'query parameter to:')
      .replace(/is after end_time/, 'is after to');
    throw invalidArgument(message, error);
  }
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function createHttpApiHandler(deps: HttpApiDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const { gateway, readModel, store, hub, logger } = deps;

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname;
    const method = req.method ?? 'GET';

    if (gateway.has(path)) {
      if (method !== 'POST') throw new HttpReply(405, `${path}: use POST`, { allow: 'POST' });
      params(url, []);
      const type = (req.headers['content-type'] ?? 'application/json').split(';')[0]!.trim();
      if (type !== 'application/json')
        throw new HttpReply(415, `content-type: ${JSON.stringify(type)} is not application/json`);
      const text = await readBody(req, deps.maxBodyBytes);
      let body: unknown = {};
      if (text.trim() !== '') {
        try {
          body = JSON.parse(text);
        } catch (error) {
          throw invalidArgument(`body: not JSON (${(error as Error).message})`);
        }
      }
      const correlation = req.headers['x-correlation-id'];
      const answer = await gateway.call({
        path,
        body,
        peer: `${req.socket.remoteAddress ?? ''}:${req.socket.remotePort ?? ''}`,
        ...(typeof correlation === 'string' ? { metadata: { 'x-correlation-id': correlation } } : {}),
        cancelled: () => req.destroyed && !res.writableFinished,
      });
      json(res, answer.status, answer.body);
      return;
    }

    const asset = deps.assets.get(path === '/' ? '/index.html' : path);
    if (asset) {
      if (method !== 'GET' && method !== 'HEAD')
        throw new HttpReply(405, `${path}: use GET`, { allow: 'GET' });
      const content = await readFile(asset.file);
      res.writeHead(200, {
        'content-type': asset.type,
        'content-length': content.length,
        'cache-control': 'no-cache',
        'x-content-type-options': 'nosniff',
      });
      res.end(method === 'HEAD' ? undefined : content);
      return;
    }

    const parts = path.split('/').filter((p) => p !== '');
    if (parts[0] !== 'api') throw notFound(`${path}: no such page or endpoint`);
    if (method !== 'GET') throw new HttpReply(405, `${path}: use GET`, { allow: 'GET' });
    const [, kind, rawName, sub, ...rest] = parts;
    if (rest.length > 0) throw notFound(`${path}: no such endpoint`);

    if (kind === 'experiments' && rawName === undefined) {
      const format = formatOf(params(url, ['format']), req);
      const experiments = await readModel.experiments();
      if (format === 'csv')
        return csv(
          res,
          'experiments',
          toCsv(
            [
              'name',
              'algorithm',
              'objective_metric',
              'objective_type',
              'trial_count',
              'created_at',
              'updated_at',
            ],
            experiments.map((e) => [
              e.name,
              e.algorithm,
              e.objectiveMetric,
              e.objectiveType,
              e.trialCount,
              iso(e.createdAtMs),
              iso(e.updatedAtMs),
            ]),
          ),
        );
      return json(res, 200, { experiments });
    }

    if (kind === 'experiments' && rawName !== undefined) {
      const name = decode(rawName);
      if (sub === 'stream') {
        params(url, []);
        const names = await readModel.trialNames(name);
        hub.attach(res, { experiment: name }, { experiment: name, trials: names });
        return;
      }
      if (sub !== undefined && sub !== 'trials') throw notFound(`${path}: no such endpoint`);
      const query = params(url, sub === 'trials' ? ['format'] : []);
      const experiment = await readModel.experiment(name);
      if (!experiment) throw notFound(`experiment ${JSON.stringify(name)}: not found`);
      if (sub === undefined) return json(res, 200, experiment);
      const trials = await readModel.trials(name);
      if (formatOf(query, req) === 'csv') {
        const parameterNames = [...new Set(trials.flatMap((t) => t.assignments.map((a) => a.name)))].sort();
        return csv(
          res,
          `${name}-trials`,
          toCsv(
            ['order', 'name', 'condition', 'best_objective', ...parameterNames],
            trials.map((t) => [
              t.order,
              t.name,
              t.condition,
              t.bestObjective,
              ...parameterNames.map((p) => t.assignments.find((a) => a.name === p)?.value ?? ''),
            ]),
          ),
        );
      }
      return json(res, 200, { experiment, trials });
    }

    if (kind === 'trials' && rawName !== undefined) {
      const name = decode(rawName);
      if (name.trim() === '') throw invalidArgument('trial name: must not be empty');
      if (sub === 'stream') {
        params(url, []);
        const trial = await readModel.trial(name);
        hub.attach(res, { trial: name }, { experiment: trial?.experiment ?? '', trials: [name] });
        return;
      }
      if (sub === 'observations') {
        const query = params(url, ['format', 'metric', 'from', 'to']);
        const format = formatOf(query, req);
        const observationQuery = observationQueryOf(name, query);
        const rows = await store.query(observationQuery);
        if (format === 'csv')
          return csv(
            res,
            `${name}-observations`,
            toCsv(
              ['time', 'metric', 'value'],
              rows.map((r) => [r.time, r.metricName, r.value]),
            ),
          );
        return json(res, 200, {
          trial: name,
          observations: rows.map((r) => ({ time: r.time, metric: r.metricName, value: r.value })),
        });
      }
      if (sub !== undefined) throw notFound(`${path}: no such endpoint`);
      params(url, []);
      const trial = await readModel.trial(name);
      if (!trial) throw notFound(`trial ${JSON.stringify(name)}: not found`);
      const experiment = trial.experiment === '' ? undefined : await readModel.experiment(trial.experiment);
      return json(res, 200, { trial, experiment: experiment ?? null });
    }

    throw notFound(`${path}: no such endpoint`);
  };

  return (req, res) => {
    route(req, res).catch((thrown: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (thrown instanceof HttpReply) {
        const code = thrown.status === 413 ? 'RESOURCE_EXHAUSTED' : 'INVALID_ARGUMENT';
        res.writeHead(thrown.status, {
          'content-type': 'application/json; charset=utf-8',
          ...thrown.headers,
        });
        res.end(JSON.stringify({ error: { code, message: thrown.message } }));
        return;
      }
      const error = toAppError(thrown);
      const known = thrown instanceof AppError;
      if (!known || error.code === 'INTERNAL' || error.code === 'UNAVAILABLE')
        logger.error({ err: thrown, url: req.url }, 'HTTP request failed');
      const answer = errorAnswer(
        error.code,
        !known && error.code === 'INTERNAL' ? 'internal error' : error.message,
      );
      json(res, answer.status, answer.body);
    });
  };
}

export function startHttpApi(
  deps: HttpApiDeps & { readonly host: string; readonly port: number },
): Promise<RunningHttpApi> {
  // Live streams never end by themselves; the hub is stopped first, anything left is cut after 1 s.
  return startHttpListener({
    name: 'HTTP server',
    host: deps.host,
    port: deps.port,
    handler: createHttpApiHandler(deps),
    keepAliveTimeoutMs: 5_000,
    closeGraceMs: 1_000,
  });
}

/** The page's files and the charting library from its npm package. */
export function webAssets(webDir: string, echartsDir: string): Map<string, { file: string; type: string }> {
  return new Map([
    ['/index.html', { file: join(webDir, 'index.html'), type: 'text/html; charset=utf-8' }],
    ['/app.js', { file: join(webDir, 'app.js'), type: 'text/javascript; charset=utf-8' }],
    ['/style.css', { file: join(webDir, 'style.css'), type: 'text/css; charset=utf-8' }],
    [
      '/vendor/echarts.min.js',
      { file: join(echartsDir, 'echarts.min.js'), type: 'text/javascript; charset=utf-8' },
    ],
  ]);
}
