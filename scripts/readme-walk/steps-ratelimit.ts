// The rate limit block: the service by its npm script, the client, /json, the debug port, the
// published configurations, and the two benches in their smallest bounded runs.
import { createServer } from 'node:net';
import { answers } from '../port-holder.ts';
import {
  type Expect,
  INFRA_PORTS,
  judge,
  launch,
  portOf,
  type Step,
  sh,
  tail,
  verdict,
  type Walk,
} from './walk.ts';

/** A port nothing listens on now (the system picks it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * `npm run ratelimit` with the documented defaults. Beside a running `npm start`, whose rate limiter
 * holds 8080, 8081 and 6070, it gets free ports through its own settings (PORT, GRPC_PORT,
 * DEBUG_PORT); nothing else is set. It must answer /healthcheck, then stop on Ctrl-C.
 */
const service: Step = {
  command: 'npm run ratelimit',
  async run(walk, command) {
    const defaults = [8080, 8081, 6070].map((p) => portOf(walk, p));
    const held = (await Promise.all(defaults.map((p) => answers('127.0.0.1', p)))).some(Boolean);
    const ports: Record<string, string> = held
      ? { PORT: `${await freePort()}`, GRPC_PORT: `${await freePort()}`, DEBUG_PORT: `${await freePort()}` }
      : {};
    const http = ports.PORT ?? String(defaults[0]);
    const settings = Object.entries(ports).map(([k, v]) => `${k}=${v}`);
    const running = launch(walk, command, { env: { ...walk.env, ...ports } });
    const healthy = await running.waitFor(
      () =>
        fetch(`http://127.0.0.1:${http}/healthcheck`).then(
          (r) => r.status === 200,
          () => false,
        ),
      30_000,
    );
    const ended = await running.stop('SIGINT', 10_000);
    const clean = ended.code === 0 || ended.code === 130 || ended.signal === 'SIGINT';
    return [
      verdict(
        healthy && clean && !ended.timedOut,
        `GET :${http}/healthcheck 200 within 30 s, then ends on Ctrl-C`,
        healthy
          ? `healthy; ${ended.code === null ? `ended by ${ended.signal}` : `exit ${ended.code}`} on SIGINT`
          : `no healthy answer within 30 s (${ended.code === null ? `ended by ${ended.signal}` : `exit ${ended.code}`}); output: ${tail(ended.stdout + ended.stderr)}`,
        settings.length > 0
          ? `${settings.join(' ')} ${command} (npm start holds ${defaults.join(', ')})`
          : undefined,
      ),
    ];
  },
};

function call(command: string, expect: Expect): Step {
  return {
    command,
    async run(walk) {
      return [judge(await sh(walk, command, { timeoutMs: 60_000 }), expect)];
    },
  };
}

/**
 * A bench in its smallest bounded run (each takes well under 30 s: 5–11 s on the shared 2-core
 * machine, once its servers run), so the walk proves the script and the bench work without
 * measuring anything. Its servers may have to start first: a fresh Kafka took 1–3 minutes on that
 * machine under a load average of 25–50, hence the 5 minutes allowed. On moved ports its servers
 * move too, 1000 above the product's (the bench profile would otherwise take them): the shift, and
 * each server port the walk was given (KAFKA_PORT=31592: the bench's Kafka on 32592).
 */
function bench(command: string, benchSettings: Record<string, string>, prints: Expect['prints']): Step {
  return {
    command,
    async run(walk: Walk) {
      const benchPorts = INFRA_PORTS.flatMap((k) =>
        walk.env[k] ? [[k, String(Number(walk.env[k]) + 1000)] as const] : [],
      );
      const settings =
        walk.portShift > 0
          ? {
              ...benchSettings,
              INFRA_PORT_SHIFT: String(walk.portShift + 1000),
              ...Object.fromEntries(benchPorts),
            }
          : benchSettings;
      // The product's own server ports (KAFKA_PORT, ...) would send the bench to the product's servers.
      const env = Object.fromEntries(Object.entries(walk.env).filter(([k]) => !INFRA_PORTS.includes(k)));
      const ran = `${Object.entries(settings)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')} ${command} (smallest bounded run, not a measurement)`;
      const result = await sh(walk, command, { timeoutMs: 300_000, env: { ...env, ...settings } });
      return [judge(result, { code: 0, prints }, ran)];
    },
  };
}

export const RATELIMIT_STEPS: readonly Step[] = [
  service,
  call(
    'npm run -s ratelimit:client -- -dial_string localhost:8081 -domain rl -descriptors foo=x,bar=y -descriptors remote_address=10.0.0.1',
    {
      prints: [
        'Flag: --domain="rl"',
        /response: statuses:\{code:(OK|OVER_LIMIT) current_limit/,
        'overall_code:',
      ],
    },
  ),
  call(
    `curl -s -XPOST localhost:8080/json -d '{"domain":"rl","descriptors":[{"entries":[{"key":"generic_key","value":"default"}]}]}'`,
    {
      prints: [
        /"overallCode":"(OK|OVER_LIMIT)","statuses":\[\{"code":"\w+","currentLimit":\{"requestsPerUnit":10/,
      ],
    },
  ),
  call('curl -s localhost:6070/rlconfig; curl -s localhost:6070/stats; curl -s localhost:6070/metrics', {
    prints: [
      /^# version: [0-9a-f]{64}$/m,
      'rl.generic_key_default: unit=SECOND requests_per_unit=10',
      'ratelimit.service.config_load_success:',
      'ratelimit_config_version_info{version="',
    ],
  }),
  // The keys of the README's calls may have expired since (a window of a second or a minute).
  call("curl -s 'localhost:6070/counters?domain=rl'", { prints: [/^\{"domain":"rl","counters":\[/] }),
  call("curl -s 'localhost:6070/counters?domain=rl&limit=1'", { prints: [/^\{"domain":"rl","counters":\[/] }),
  call("curl -s 'localhost:6070/counters?domain=rl&key=foo=x,bar=y'", {
    prints: [/^\{"domain":"rl","counters":\[/],
  }),
  call("kcat -b 127.0.0.1:9092 -C -t ratelimit.config -o beginning -e -f 'key=%k %h\\n'", {
    prints: ['key=default event-type=RateLimitConfigPublished,schema-version=1'],
  }),
  call('npm run -s replay -- ratelimit.config --from-beginning', {
    prints: ['"key":"default","eventType":"RateLimitConfigPublished"'],
  }),
  bench(
    'npm run bench:ratelimit',
    { BENCH_SECONDS: '1', BENCH_WARMUP_MS: '0', BENCH_CALLERS: '1', BENCH_ONLY: 'grpc' },
    [/^gRPC\s+1\s+\d+/m, 'counter store connection alone'],
  ),
  bench('npm run bench:ratelimit-config', { BENCH_RELOADS: '1' }, [
    'hot reload, file replaced -> first decision with the new limit: p50',
    'broadcast, file replaced on the publisher -> all three instances deciding with the new limit: p50',
  ]),
];
