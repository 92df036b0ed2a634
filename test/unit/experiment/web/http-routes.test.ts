import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExperimentView, ReadModel } from '../../../../services/experiment/common/read-model.ts';
import { createObjectiveAnalysis } from '../../../../services/experiment/suggestion/objective-views/analysis.ts';
import { createHttpApiHandler } from '../../../../services/experiment/web/adapters/http-api.ts';
import { type Endpoint, routeRequest } from '../../../../services/experiment/web/adapters/http-routes.ts';
import type { LiveHub } from '../../../../services/experiment/web/adapters/live-hub.ts';
import { AppError } from '../../../../shared/errors.ts';
import type { GrpcJsonCall } from '../../../../shared/grpc-http.ts';
import { silentLogger } from '../../../../shared/logger.ts';
import { createServer } from '../../../../shared/node-http.ts';

describe('routeRequest', () => {
  const table: Endpoint<string>[] = [
    { path: (path) => path === '/Service/Call', methods: ['POST'], handler: 'gateway' },
    { path: 'api/things', methods: ['GET'], handler: 'list' },
    { path: 'api/things/:thing', methods: ['GET', 'HEAD'], handler: 'one' },
    { path: 'api/things/:thing/parts/:part', methods: ['GET'], handler: 'part' },
    { path: 'api/things/:thing', methods: ['DELETE'], handler: 'never reached' },
  ];

  it('finds the handler by path and method, with the named segments decoded', () => {
    expect(routeRequest(table, 'POST', '/Service/Call')).toEqual({
      kind: 'found',
      handler: 'gateway',
      params: {},
    });
    expect(routeRequest(table, 'GET', '/api/things')).toMatchObject({ handler: 'list' });
    expect(routeRequest(table, 'HEAD', '/api/things/a%20b')).toEqual({
      kind: 'found',
      handler: 'one',
      params: { thing: 'a b' },
    });
    expect(routeRequest(table, 'GET', '/api//things/x/parts/y/')).toEqual({
      kind: 'found',
      handler: 'part',
      params: { thing: 'x', part: 'y' },
    });
  });

  it('refuses another method naming every method the matching endpoint takes; the first match decides', () => {
    expect(routeRequest(table, 'GET', '/Service/Call')).toEqual({ kind: 'wrong method', allow: 'POST' });
    expect(routeRequest(table, 'DELETE', '/api/things/x')).toEqual({
      kind: 'wrong method',
      allow: 'GET, HEAD',
    });
  });

  it('finds nothing for another path or another number of segments', () => {
    for (const path of ['/', '/api', '/api/others', '/api/things/x/parts', '/Service/Call/more'])
      expect(routeRequest(table, 'GET', path), path).toEqual({ kind: 'not found' });
  });

  it('refuses bad percent-encoding in a named segment once the method is accepted', () => {
    expect(() => routeRequest(table, 'GET', '/api/things/%E0%A4%A')).toThrow(
      expect.objectContaining({
        code: 'INVALID_ARGUMENT',
        message: 'path: "%E0%A4%A" is not valid percent-encoding',
      }),
    );
    expect(routeRequest(table, 'POST', '/api/things/%E0%A4%A')).toEqual({
      kind: 'wrong method',
      allow: 'GET, HEAD',
    });
  });
});

describe('the HTTP API route table', () => {
  const folder = mkdtempSync(join(tmpdir(), 'http-routes-'));
  const calls: string[] = [];
  const gatewayCalls: GrpcJsonCall[] = [];
  const experiment: ExperimentView = {
    name: 'e 1',
    algorithm: 'random',
    objectiveMetric: 'loss',
    objectiveType: 'MINIMIZE',
    objectives: [{ metricName: 'loss', type: 'MINIMIZE' }],
    parameters: [],
    rules: [],
    trialCount: 0,
    createdAtMs: 0,
    updatedAtMs: 0,
  };
  const called = <T>(call: string, answer: T): T => {
    calls.push(call);
    return answer;
  };
  const readModel: ReadModel = {
    experiments: async () => called('experiments', [experiment]),
    experiment: async (name) => called(`experiment ${name}`, name === 'e 1' ? experiment : undefined),
    trialPage: async (name, q) => called(`trialPage ${name} ${JSON.stringify(q)}`, { total: 0, trials: [] }),
    trialSummary: async (name) =>
      called(`trialSummary ${name}`, { names: [], conditions: [], best: [], parameters: [], values: [] }),
    trialObjectives: async (name, objectives) =>
      called(`trialObjectives ${name} ${objectives.map((o) => o.metricName).join(',')}`, {
        names: [],
        conditions: [],
        assignments: [],
        values: objectives.map(() => []),
      }),
    trial: async (name) => called(`trial ${name}`, undefined),
    trialNames: async (name) => called(`trialNames ${name}`, []),
  };
  const hub = {
    attach: (res: import('node:http').ServerResponse) => {
      calls.push('attach');
      res.end();
    },
  } as unknown as LiveHub;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    writeFileSync(join(folder, 'index.html'), '<p>page</p>');
    const handler = createHttpApiHandler({
      gateway: {
        paths: ['/api.v1.beta1.DBManager/GetObservationLog'],
        has: (path) => path === '/api.v1.beta1.DBManager/GetObservationLog',
        call: async (call) => {
          gatewayCalls.push(call);
          return { status: 200, body: { echoed: call.body } };
        },
      },
      readModel,
      analysis: createObjectiveAnalysis(),
      store: {
        query: async (query) => {
          calls.push(`query ${query.trialName} ${query.metricName ?? ''}`);
          if (query.trialName === 'boom') throw new AppError('UNAVAILABLE', 'store down');
          return [];
        },
        curves: async (query) => {
          calls.push(`curves ${JSON.stringify(query)}`);
          return [];
        },
      },
      hub,
      logger: silentLogger,
      maxBodyBytes: 1024,
      assets: new Map([['/index.html', { file: join(folder, 'index.html'), type: 'text/html' }]]),
    });
    server = createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(folder, { recursive: true, force: true });
  });

  const send = async (method: string, path: string, init: { body?: string; type?: string } = {}) => {
    calls.length = 0;
    const res = await fetch(`${base}${path}`, {
      method,
      ...(init.body === undefined ? {} : { body: init.body }),
      headers: init.type === undefined ? {} : { 'content-type': init.type },
    });
    const text = await res.text();
    return {
      status: res.status,
      allow: res.headers.get('allow'),
      body: text.startsWith('{') ? JSON.parse(text) : text,
      calls: [...calls],
    };
  };

  it.each([
    ['GET', '/api/experiments', ['experiments']],
    ['GET', '/api/experiments/e%201', ['experiment e 1']],
    [
      'GET',
      '/api/experiments/e%201/trials',
      [
        'experiment e 1',
        'trialPage e 1 {"offset":0,"limit":50,"sort":{"column":"order"},"descending":false}',
      ],
    ],
    [
      'GET',
      '/api/experiments/e%201/trials?offset=100&limit=1000&sort=param%3Alr&order=desc&status=RUNNING&q=a%25',
      [
        'experiment e 1',
        'trialPage e 1 {"offset":100,"limit":1000,"sort":{"parameter":"lr"},"descending":true,"condition":"RUNNING","nameContains":"a%"}',
      ],
    ],
    ['GET', '/api/experiments/e%201/summary', ['experiment e 1', 'trialSummary e 1']],
    ['GET', '/api/experiments/e%201/pareto?reference=2', ['experiment e 1', 'trialObjectives e 1 loss']],
    ['GET', '/api/experiments/e%201/importance?format=csv', ['experiment e 1', 'trialObjectives e 1 loss']],
    ['GET', '/api/trials/t1/curves', ['curves {"trialName":"t1","columns":1000}']],
    [
      'GET',
      '/api/trials/t1/curves?metric=loss&from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00.5%2B01:00&columns=7',
      [
        'curves {"trialName":"t1","metricName":"loss","from":"2026-01-01T00:00:00.000000Z","to":"2026-01-01T23:00:00.500000Z","columns":7}',
      ],
    ],
    ['GET', '/api/experiments/e%201/stream', ['trialNames e 1', 'attach']],
    ['GET', '/api/trials/t1/observations?metric=loss', ['query t1 loss']],
    ['GET', '/api/trials/t1/stream', ['trial t1', 'attach']],
  ])('%s %s goes to its handler', async (method, path, expected) => {
    const answer = await send(method, path);
    expect(answer.status).toBe(200);
    expect(answer.calls).toEqual(expected);
  });

  it('serves the page for / and answers HEAD without a body', async () => {
    expect(await send('GET', '/')).toMatchObject({ status: 200, body: '<p>page</p>' });
    expect(await send('HEAD', '/index.html')).toMatchObject({ status: 200, body: '' });
  });

  it('passes a gRPC path with its JSON body to the gateway', async () => {
    gatewayCalls.length = 0;
    const answer = await send('POST', '/api.v1.beta1.DBManager/GetObservationLog', {
      body: '{"trial_name":"t1"}',
      type: 'application/json; charset=utf-8',
    });
    expect(answer).toMatchObject({ status: 200, body: { echoed: { trial_name: 't1' } } });
    expect(gatewayCalls.map((c) => c.path)).toEqual(['/api.v1.beta1.DBManager/GetObservationLog']);
  });

  it.each([
    ['GET', '/nothing', '/nothing: no such page or endpoint'],
    ['GET', '/api/runs', '/api/runs: no such endpoint'],
    ['GET', '/api/experiments/e%201/more', '/api/experiments/e%201/more: no such endpoint'],
    ['GET', '/api/experiments/unknown', 'experiment "unknown": not found'],
    ['GET', '/api/trials/t1', 'trial "t1": not found'],
  ])('%s %s: 404', async (method, path, message) => {
    const answer = await send(method, path);
    expect(answer).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND', message } } });
  });

  it.each([
    ['PUT', '/api/experiments', 'GET, POST'],
    ['DELETE', '/api/trials/t1', 'GET'],
    ['POST', '/api/runs', 'GET'],
    ['PUT', '/index.html', 'GET, HEAD'],
    ['GET', '/api.v1.beta1.DBManager/GetObservationLog', 'POST'],
  ])('%s %s: 405, allow %s', async (method, path, allow) => {
    const answer = await send(method, path);
    expect(answer).toMatchObject({
      status: 405,
      allow,
      body: { error: { code: 'UNIMPLEMENTED', grpcCode: 12, message: `${path}: use ${allow}` } },
    });
    expect(answer.calls).toEqual([]);
  });

  it('415 for a gRPC path with a body that is not JSON by its type', async () => {
    gatewayCalls.length = 0;
    const path = '/api.v1.beta1.DBManager/GetObservationLog';
    expect(await send('POST', path, { body: 'x', type: 'text/plain' })).toMatchObject({
      status: 415,
      body: {
        error: {
          code: 'INVALID_ARGUMENT',
          grpcCode: 3,
          message: 'content-type: "text/plain" is not application/json',
        },
      },
    });
    expect(gatewayCalls).toEqual([]);
  });

  it('413 with its code for a body over the limit, answered before the connection is closed', async () => {
    gatewayCalls.length = 0;
    const answer = await send('POST', '/api.v1.beta1.DBManager/GetObservationLog', {
      body: `{"trial_name":"${'x'.repeat(64 * 1024)}"}`,
      type: 'application/json',
    });
    expect(answer).toMatchObject({
      status: 413,
      body: { error: { code: 'RESOURCE_EXHAUSTED', grpcCode: 8, message: 'body: larger than 1024 bytes' } },
    });
    expect(gatewayCalls).toEqual([]);
  });

  it.each([
    ['/api/experiments/e%201/trials?offset=-1', 'query parameter offset: "-1" is not a whole number from 0'],
    [
      '/api/experiments/e%201/trials?limit=1001',
      'query parameter limit: "1001" is not a whole number from 1 to 1000',
    ],
    [
      '/api/experiments/e%201/trials?limit=0',
      'query parameter limit: "0" is not a whole number from 1 to 1000',
    ],
    [
      '/api/experiments/e%201/trials?sort=best',
      'query parameter sort: "best" is not order, name, condition, bestObjective or param:<parameter name>',
    ],
    [
      '/api/experiments/e%201/trials?sort=param%3A',
      'query parameter sort: "param:" is not order, name, condition, bestObjective or param:<parameter name>',
    ],
    ['/api/experiments/e%201/trials?order=up', 'query parameter order: "up" is not asc or desc'],
    [
      '/api/experiments/e%201/trials?page=2',
      'query parameter page: unknown (allowed: format, offset, limit, sort, order, status, q)',
    ],
    ['/api/experiments/e%201/summary?limit=5', 'query parameter limit: unknown (allowed: none)'],
    ['/api/trials/t1/curves?columns=0', 'query parameter columns: "0" is not a whole number from 1 to 4000'],
    [
      '/api/trials/t1/curves?columns=1.5',
      'query parameter columns: "1.5" is not a whole number from 1 to 4000',
    ],
    [
      '/api/trials/t1/curves?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z',
      'query parameter from: "2026-01-02T00:00:00Z" is after to "2026-01-01T00:00:00Z"',
    ],
    [
      '/api/trials/t1/curves?format=csv',
      'query parameter format: unknown (allowed: metric, from, to, columns)',
    ],
  ])('400 for %s, nothing read', async (path, message) => {
    const answer = await send('GET', path);
    expect(answer).toMatchObject({ status: 400, body: { error: { code: 'INVALID_ARGUMENT', message } } });
    expect(answer.calls.filter((c) => !c.startsWith('experiment '))).toEqual([]);
  });

  it('400 for an empty trial name or an unknown query parameter; 503 when the store fails', async () => {
    expect(await send('GET', '/api/trials/%20')).toMatchObject({
      status: 400,
      body: { error: { message: 'trial name: must not be empty' } },
    });
    expect(await send('GET', '/api/experiments?since=1')).toMatchObject({
      status: 400,
      body: { error: { message: 'query parameter since: unknown (allowed: format)' } },
    });
    expect(await send('GET', '/api/trials/boom/observations')).toMatchObject({
      status: 503,
      body: { error: { code: 'UNAVAILABLE', message: 'store down' } },
    });
  });
});
