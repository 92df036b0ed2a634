// After a test run beside a running `npm start`: does the product show anything the tests made?
// Reads the product's own servers (the `product` infra profile) and its experiment page, and exits
// 1 naming each trace found. `.ci/run` runs it so that the isolation of the tests is proven, not assumed.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { createBus } from '../shared/bus/index.ts';
import { silentLogger } from '../shared/logger.ts';

const INFRA = join(import.meta.dirname, 'infra.sh');
const env = Object.fromEntries(
  execFileSync('bash', [INFRA, 'env'], {
    encoding: 'utf8',
    env: { ...process.env, INFRA_PROFILE: 'product' },
  })
    .trim()
    .split('\n')
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
);
const page = process.argv[2] ?? 'http://127.0.0.1:8686';
const traces: string[] = [];

const bus = createBus({
  brokers: env.KAFKA_BROKERS!.split(','),
  clientId: 'product-untouched',
  logger: silentLogger,
});
try {
  const topics = await bus.client.listTopics();
  const foreign = topics.filter(
    (t) =>
      !t.startsWith('experiment.') &&
      !t.startsWith('ratelimit.') &&
      !t.startsWith('kv.') &&
      !t.startsWith('__'),
  );
  if (foreign.length > 0)
    traces.push(`product Kafka holds topics no product service declares: ${foreign.join(', ')}`);
  for (const topic of topics.filter((t) => t.startsWith('experiment.') && !t.endsWith('.dlq'))) {
    const events = (await bus.watermarks(topic)).reduce((n, w) => n + Number(w.high - w.low), 0);
    if (events > 0) traces.push(`product topic ${topic} holds ${events} events`);
  }
} finally {
  await bus.close();
}

try {
  const experiments = (await (await fetch(`${page}/api/experiments`)).json()) as unknown[];
  if (experiments.length > 0) traces.push(`the product's page lists ${experiments.length} experiments`);
} catch (error) {
  traces.push(`the product's page did not answer at ${page}: ${(error as Error).message}`);
}

const redisKeys = execFileSync('redis-cli', ['-u', `redis://${env.REDIS_URL}`, 'DBSIZE'], {
  encoding: 'utf8',
}).trim();
if (redisKeys !== '0') traces.push(`product Redis holds ${redisKeys} keys`);

const schemas = execFileSync(
  'psql',
  [
    env.POSTGRES_URL!,
    '-Atqc',
    "SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname NOT IN ('public', 'information_schema')",
  ],
  { encoding: 'utf8' },
).trim();
if (schemas !== '')
  traces.push(`product PostgreSQL has schemas the product does not make: ${schemas.split('\n').join(', ')}`);

if (traces.length > 0) {
  process.stderr.write(
    `product-untouched: the test run left traces in the product:\n${traces.map((t) => `  - ${t}`).join('\n')}\n`,
  );
  process.exit(1);
}
process.stdout.write('product-untouched: the running product shows nothing of the test run\n');
