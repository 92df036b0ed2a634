import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Client, credentials, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { dominates } from '../../services/experiment/suggestion/multi-objective/pareto.ts';
import { loadPackageDefinition, lookupService } from '../../shared/grpc.ts';
import { type ExperimentServer, startExperimentServer } from '../helpers/experiment-server.ts';
import { uniqueName } from '../helpers/kafka.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { gatewayCall } from '../helpers/web-page.ts';

// A two-objective experiment (nsga2 with the objectives setting) run once over gRPC and once over
// the HTTP gateway: its trials' observation logs reported, then its Pareto front and parameter
// importance read from the read model over HTTP, as JSON and CSV. A one-objective experiment's front
// is its best trial.
const infra = inject('infra');
const dir = mkdtempSync(join(tmpdir(), 'pareto-api-'));
const TRIALS = 40;
let server: ExperimentServer;
let base: string;
const clients: Client[] = [];

beforeAll(async () => {
  server = await startExperimentServer({
    KAFKA_BROKERS: infra.KAFKA_BROKERS,
    OBSERVATION_STORE: 'sqlite',
    SQLITE_FILE: join(dir, 'observations.db'),
    PERSISTENCE_GROUP: uniqueName('test-pareto-persistence'),
    EARLY_STOPPING_WORKER: 'false',
  });
  base = `http://127.0.0.1:${server.httpPort}`;
});

afterAll(async () => {
  for (const c of clients) c.close();
  if (server) expect(await server.stop()).toBe(0);
  rmSync(dir, { recursive: true, force: true });
});

/** One gRPC call with the generic client (snake_case fields, as grpc-js takes them). */
function grpc(service: string, method: string, request: object): Promise<unknown> {
  const Service = lookupService(loadPackageDefinition(['api/v1beta1/api.proto']), `api.v1.beta1.${service}`);
  const client = new Service(server.address, credentials.createInsecure());
  clients.push(client);
  return new Promise((resolve, reject) =>
    (
      client as unknown as Record<
        string,
        (r: object, o: object, cb: (e: ServiceError | null, r?: unknown) => void) => void
      >
    )[method]!.call(client, request, { deadline: Date.now() + 60_000 }, (error, reply) =>
      error ? reject(error) : resolve(reply),
    ),
  );
}

/** Trial i: x drives accuracy, y latency; z and optimizer do nothing. */
function trialOf(experiment: string, i: number) {
  const x = ((i * 37) % 41) / 41;
  const y = ((i * 23) % 43) / 43;
  const z = ((i * 11) % 47) / 47;
  return {
    name: `${experiment}-t${i}`,
    assignments: { x: String(x), y: String(y), z: String(z), optimizer: i % 2 === 0 ? 'sgd' : 'adam' },
    accuracy: Number((0.5 + 0.4 * x).toFixed(6)),
    latency: Number((10 + 90 * y).toFixed(6)),
    // The last trial is still running: it reports, but does not count.
    condition: i === TRIALS - 1 ? 'RUNNING' : 'SUCCEEDED',
  };
}

const PARAMETERS = [
  { name: 'x', parameter_type: 'DOUBLE', feasible_space: { min: '0', max: '1' } },
  { name: 'y', parameter_type: 'DOUBLE', feasible_space: { min: '0', max: '1' } },
  { name: 'z', parameter_type: 'DOUBLE', feasible_space: { min: '0', max: '1' } },
  { name: 'optimizer', parameter_type: 'CATEGORICAL', feasible_space: { list: ['sgd', 'adam'] } },
];
const OBJECTIVES = 'accuracy:maximize,latency_ms:minimize';

/** Both transports take the same request: snake_case for gRPC, the JSON mapping accepts it too. */
function suggestionsRequest(experiment: string, algorithm: string, objectives?: string) {
  return {
    experiment: {
      name: experiment,
      spec: {
        objective: {
          type: 'MAXIMIZE',
          objective_metric_name: 'accuracy',
          additional_metric_names: ['latency_ms'],
        },
        algorithm: {
          algorithm_name: algorithm,
          algorithm_settings: objectives ? [{ name: 'objectives', value: objectives }] : [],
        },
        parameter_specs: { parameters: PARAMETERS },
      },
    },
    trials: Array.from({ length: TRIALS }, (_, i) => {
      const t = trialOf(experiment, i);
      return {
        name: t.name,
        spec: {
          parameter_assignments: {
            assignments: Object.entries(t.assignments).map(([name, value]) => ({ name, value })),
          },
        },
        status: { condition: t.condition },
      };
    }),
    current_request_number: 1,
    total_request_number: TRIALS + 1,
  };
}

function reportRequest(experiment: string, i: number) {
  const t = trialOf(experiment, i);
  const log = (s: number, name: string, value: number) => ({
    time_stamp: new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString(),
    metric: { name, value: String(value) },
  });
  // A worse value first: each objective's best in its own direction counts.
  return {
    trial_name: t.name,
    observation_log: {
      metric_logs: [
        log(0, 'accuracy', t.accuracy - 0.1),
        log(1, 'accuracy', t.accuracy),
        log(0, 'latency_ms', t.latency + 50),
        log(1, 'latency_ms', t.latency),
      ],
    },
  };
}

interface Transport {
  suggest(request: object): Promise<void>;
  report(request: object): Promise<void>;
}
const overGrpc: Transport = {
  suggest: async (request) => void (await grpc('Suggestion', 'GetSuggestions', request)),
  report: async (request) => void (await grpc('DBManager', 'ReportObservationLog', request)),
};
const overHttp: Transport = {
  async suggest(request) {
    const { status, text } = await gatewayCall(base, 'Suggestion/GetSuggestions', request);
    expect(status, text).toBe(200);
  },
  async report(request) {
    const { status, text } = await gatewayCall(base, 'DBManager/ReportObservationLog', request);
    expect(status, text).toBe(200);
  },
};

async function runExperiment(
  transport: Transport,
  experiment: string,
  algorithm: string,
  objectives?: string,
) {
  await transport.suggest(suggestionsRequest(experiment, algorithm, objectives));
  for (let i = 0; i < TRIALS; i += 10)
    await Promise.all(
      Array.from({ length: 10 }, (_, k) => transport.report(reportRequest(experiment, i + k))),
    );
}

const getJson = async (path: string) => {
  const res = await fetch(`${base}${path}`);
  return { status: res.status, body: await res.json() };
};

/** The front by the definition, over the counted trials (every one but the running last). */
function expectedFront(experiment: string): string[] {
  const counted = Array.from({ length: TRIALS - 1 }, (_, i) => trialOf(experiment, i));
  const loss = (t: ReturnType<typeof trialOf>) => [-t.accuracy, t.latency];
  return counted.filter((t) => !counted.some((o) => dominates(loss(o), loss(t)))).map((t) => t.name);
}

describe.each([
  ['gRPC', overGrpc],
  ['the HTTP gateway', overHttp],
])('a two-objective experiment over %s', (_, transport) => {
  const experiment = uniqueName('pareto');

  beforeAll(async () => {
    await runExperiment(transport, experiment, 'nsga2', OBJECTIVES);
    await waitFor(
      'every trial counted in the front',
      async () => {
        const { body } = await getJson(`/api/experiments/${experiment}/pareto`);
        return body.trials?.length === TRIALS - 1;
      },
      { timeoutMs: 60_000 },
    );
  });

  it('answers the front, every counted trial’s rank and the hypervolume', async () => {
    const { status, body } = await getJson(`/api/experiments/${experiment}/pareto?reference=0.5,100`);
    expect(status).toBe(200);
    expect(body.experiment.objectives).toEqual([
      { metricName: 'accuracy', type: 'MAXIMIZE' },
      { metricName: 'latency_ms', type: 'MINIMIZE' },
    ]);
    expect(body.objectives).toEqual(body.experiment.objectives);
    expect(body.front).toEqual(expectedFront(experiment));
    expect(body.reference).toEqual([0.5, 100]);
    expect(body.referenceFrom).toBe('query');
    const t0 = trialOf(experiment, 0);
    expect(body.trials[0]).toEqual({
      name: t0.name,
      rank: expect.any(Number),
      values: [t0.accuracy, t0.latency],
    });
    expect(
      body.trials.filter((t: { rank: number }) => t.rank === 0).map((t: { name: string }) => t.name),
    ).toEqual(body.front);
    expect(body.hypervolume).toBeGreaterThan(0);
    // The default reference point: below the worst accuracy, above the worst latency.
    const fallback = (await getJson(`/api/experiments/${experiment}/pareto`)).body;
    expect(fallback.referenceFrom).toBe('default');
    expect(fallback.reference[0]).toBeLessThan(0.5);
    expect(fallback.reference[1]).toBeGreaterThan(
      Math.max(...body.trials.map((t: { values: number[] }) => t.values[1]!)),
    );

    const csv = await fetch(`${base}/api/experiments/${experiment}/pareto?format=csv`);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = (await csv.text()).trimEnd().split('\r\n');
    expect(lines[0]).toBe('name,rank,accuracy,latency_ms');
    expect(lines).toHaveLength(TRIALS);
    expect(lines[1]).toBe(`${t0.name},${body.trials[0].rank},${t0.accuracy},${t0.latency}`);
  });

  it('answers each parameter’s importance for each objective: its own parameter first', async () => {
    const { status, body } = await getJson(`/api/experiments/${experiment}/importance`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ trials: TRIALS - 1, fittedOn: TRIALS - 1 });
    const top = (k: number) =>
      [...body.objectives[k].importances].sort(
        (a: { importance: number }, b: { importance: number }) => b.importance - a.importance,
      )[0].parameter;
    expect(body.objectives.map((o: { metricName: string }) => o.metricName)).toEqual([
      'accuracy',
      'latency_ms',
    ]);
    expect(top(0)).toBe('x');
    expect(top(1)).toBe('y');
    const csv = await (await fetch(`${base}/api/experiments/${experiment}/importance?format=csv`)).text();
    const lines = csv.trimEnd().split('\r\n');
    expect(lines[0]).toBe('objective,parameter,importance');
    expect(lines.slice(1).map((l) => l.split(',').slice(0, 2).join(','))).toEqual(
      ['accuracy', 'latency_ms'].flatMap((o) => ['x', 'y', 'z', 'optimizer'].map((p) => `${o},${p}`)),
    );
  });
});

describe('a one-objective experiment and the errors', () => {
  it('answers a one-objective front: its best trial', async () => {
    const experiment = uniqueName('single');
    await runExperiment(overHttp, experiment, 'random');
    await waitFor(
      'every trial counted',
      async () => (await getJson(`/api/experiments/${experiment}/pareto`)).body.trials?.length === TRIALS - 1,
      { timeoutMs: 60_000 },
    );
    const { body } = await getJson(`/api/experiments/${experiment}/pareto?reference=0.5`);
    const counted = Array.from({ length: TRIALS - 1 }, (_, i) => trialOf(experiment, i));
    const best = Math.max(...counted.map((t) => t.accuracy));
    expect(body.objectives).toEqual([{ metricName: 'accuracy', type: 'MAXIMIZE' }]);
    expect(body.front).toEqual(counted.filter((t) => t.accuracy === best).map((t) => t.name));
    expect(body.hypervolume).toBeCloseTo(best - 0.5, 9);
    expect((await getJson(`/api/experiments/${experiment}/importance`)).body.objectives).toHaveLength(1);
  });

  it('404 for an unknown experiment, 400 naming a bad reference point', async () => {
    expect(await getJson(`/api/experiments/${uniqueName('none')}/pareto`)).toMatchObject({
      status: 404,
      body: { error: { code: 'NOT_FOUND' } },
    });
    const experiment = uniqueName('bad-reference');
    await overHttp.suggest({ ...suggestionsRequest(experiment, 'nsga2', OBJECTIVES), trials: [] });
    await waitFor(
      'the experiment',
      async () => (await getJson(`/api/experiments/${experiment}`)).status === 200,
    );
    expect(await getJson(`/api/experiments/${experiment}/pareto?reference=1`)).toMatchObject({
      status: 400,
      body: {
        error: {
          message: 'query parameter reference: "1" is not 2 comma-separated numbers (accuracy, latency_ms)',
        },
      },
    });
  });
});
