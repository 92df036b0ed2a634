// The experiment service's HTTP listener: every api.v1.beta1 call as POST /<service>/<method> through
// the gRPC handlers (shared/grpc-http.ts), the read API (./read-endpoints.ts), and the web page with
// its assets, dispatched by one route table (./http-routes.ts).
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { invalidArgument, notFound } from '../../../../shared/errors.ts';
import type { GrpcJsonGateway } from '../../../../shared/grpc-http.ts';
import { type HttpListener, startHttpListener } from '../../../../shared/http-listener.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { ObservationStore } from '../../common/ports.ts';
import type { ObjectiveAnalysis, ReadModel } from '../../common/read-model.ts';
import type { ExperimentStatuses, ExperimentSubmitter } from '../../common/submissions.ts';
import { answerFailure, answerWith, HttpReply, json, params, readBody } from './http-replies.ts';
import { type Endpoint, routeRequest } from './http-routes.ts';
import type { LiveHub } from './live-hub.ts';
import { createObjectiveEndpoints } from './objective-endpoints.ts';
import { createReadEndpoints, type HttpContext, type HttpHandler } from './read-endpoints.ts';
import { createStatusEndpoint, createSubmitEndpoint } from './submit-endpoint.ts';

export interface HttpApiDeps {
  readonly gateway: GrpcJsonGateway;
  readonly readModel: ReadModel;
  /** Computes the front and importance the objective endpoints answer. */
  readonly analysis: ObjectiveAnalysis;
  readonly store: Pick<ObservationStore, 'query' | 'curves'>;
  readonly hub: LiveHub;
  readonly logger: Logger;
  readonly maxBodyBytes: number;
  /** Takes POST /api/experiments; undefined: refused with 404. */
  readonly submissions?: ExperimentSubmitter;
  /** Answers GET /api/experiments/{name}/status; undefined: 404. */
  readonly statuses?: ExperimentStatuses;
  /** Files served as they are: URL path → absolute file and content type. */
  readonly assets: ReadonlyMap<string, { readonly file: string; readonly type: string }>;
}

export type RunningHttpApi = HttpListener;

/** Every endpoint, in the order they are tried. */
export function httpRoutes(deps: HttpApiDeps): Endpoint<HttpHandler>[] {
  const { gateway } = deps;
  const reads = createReadEndpoints(deps);
  const objectives = createObjectiveEndpoints(deps);
  const assetOf = (path: string) => deps.assets.get(path === '/' ? '/index.html' : path);

  const callGateway: HttpHandler = async ({ req, res, url }) => {
    const path = url.pathname;
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
    const gone = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    const answer = await gateway.call({
      path,
      body,
      peer: `${req.socket.remoteAddress ?? ''}:${req.socket.remotePort ?? ''}`,
      ...(typeof correlation === 'string' ? { metadata: { 'x-correlation-id': correlation } } : {}),
      signal: gone.signal,
    });
    if (answer.failure) answerWith(req, res, answer.failure);
    else json(res, answer.status, answer.body);
  };

  const serveAsset: HttpHandler = async ({ req, res, url }) => {
    const asset = assetOf(url.pathname)!;
    const content = await readFile(asset.file);
    res.writeHead(200, {
      'content-type': asset.type,
      'content-length': content.length,
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
    });
    res.end(req.method === 'HEAD' ? undefined : content);
  };

  const noSuchEndpoint: HttpHandler = async ({ url }) => {
    throw notFound(`${url.pathname}: no such endpoint`);
  };

  const submit = createSubmitEndpoint({ submissions: deps.submissions, maxBodyBytes: deps.maxBodyBytes });
  // One endpoint per path (the first match decides the method): the list and the submission share it.
  const experiments: HttpHandler = (context) =>
    context.req.method === 'POST' ? submit(context) : reads.experiments(context);

  const GET = ['GET'];
  return [
    { path: (path) => gateway.has(path), methods: ['POST'], handler: callGateway },
    { path: (path) => assetOf(path) !== undefined, methods: ['GET', 'HEAD'], handler: serveAsset },
    { path: 'api/experiments', methods: ['GET', 'POST'], handler: experiments },
    { path: 'api/experiments/:experiment', methods: GET, handler: reads.experiment },
    { path: 'api/experiments/:experiment/trials', methods: GET, handler: reads.experimentTrials },
    {
      path: 'api/experiments/:experiment/status',
      methods: GET,
      handler: createStatusEndpoint({ statuses: deps.statuses }),
    },
    { path: 'api/experiments/:experiment/summary', methods: GET, handler: reads.experimentSummary },
    { path: 'api/experiments/:experiment/pareto', methods: GET, handler: objectives.pareto },
    { path: 'api/experiments/:experiment/importance', methods: GET, handler: objectives.importance },
    { path: 'api/experiments/:experiment/stream', methods: GET, handler: reads.experimentStream },
    { path: 'api/trials/:trial', methods: GET, handler: reads.trial },
    { path: 'api/trials/:trial/observations', methods: GET, handler: reads.trialObservations },
    { path: 'api/trials/:trial/curves', methods: GET, handler: reads.trialCurves },
    { path: 'api/trials/:trial/stream', methods: GET, handler: reads.trialStream },
    // Anything else under /api: GET only, so another method is refused before the path is.
    {
      path: (path) => path.split('/').filter((s) => s !== '')[0] === 'api',
      methods: GET,
      handler: noSuchEndpoint,
    },
  ];
}

export function createHttpApiHandler(deps: HttpApiDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const table = httpRoutes(deps);
  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname;
    const routed = routeRequest(table, req.method ?? 'GET', path);
    if (routed.kind === 'not found') throw notFound(`${path}: no such page or endpoint`);
    if (routed.kind === 'wrong method')
      throw new HttpReply(405, `${path}: use ${routed.allow}`, { allow: routed.allow });
    const context: HttpContext = { req, res, url, params: routed.params };
    await routed.handler(context);
  };
  return (req, res) => {
    route(req, res).catch((thrown: unknown) => answerFailure(req, res, thrown, deps.logger));
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
    ...['common.js', 'experiment.js', 'charts.js', 'objectives.js', 'trial.js', 'curve.js'].map(
      (file) => [`/${file}`, { file: join(webDir, file), type: 'text/javascript; charset=utf-8' }] as const,
    ),
    ['/style.css', { file: join(webDir, 'style.css'), type: 'text/css; charset=utf-8' }],
    [
      '/vendor/echarts.min.js',
      { file: join(echartsDir, 'echarts.min.js'), type: 'text/javascript; charset=utf-8' },
    ],
  ]);
}
