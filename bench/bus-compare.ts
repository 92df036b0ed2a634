// Runs bench/bus.ts once per Kafka client, alternating, BENCH_ROUNDS rounds, each in a fresh
// process (so RSS is that client's), and prints the figures side by side with the ratio of the
// second client to the first. Every other BENCH_* setting goes through to bench/bus.ts.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { KAFKA_CLIENTS } from '../shared/bus/index.ts';
import { int, readSettings } from '../shared/settings.ts';

const settings = readSettings({ rounds: int('BENCH_ROUNDS', 2, { min: 1, max: 10 }) }, process.env);

type Figures = Record<string, number>;
const runs = new Map<string, Figures[]>(KAFKA_CLIENTS.map((c) => [c, []]));

for (let round = 1; round <= settings.rounds; round++) {
  for (const client of KAFKA_CLIENTS) {
    process.stderr.write(`round ${round}: ${client}\n`);
    const run = spawnSync(process.execPath, [join(import.meta.dirname, 'bus.ts')], {
      env: { ...process.env, KAFKA_CLIENT: client, BENCH_JSON: '1' },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      timeout: 300_000,
    });
    const line = run.stdout.trim().split('\n').at(-1) ?? '';
    if (run.status !== 0 || !line.startsWith('{')) {
      process.stderr.write(`bench/bus.ts on ${client} failed (exit ${run.status})\n`);
      process.exit(1);
    }
    runs.get(client)!.push(JSON.parse(line) as Figures);
  }
}

const rows: [label: string, key: string, digits: number, unit: string][] = [
  ['producer, 1 event per send', 'produceOneRate', 0, 'events/s'],
  ['  CPU per event', 'produceOneCpuUs', 0, 'µs'],
  ['producer, 100 events per send', 'produceBatchRate', 0, 'events/s'],
  ['  CPU per event', 'produceBatchCpuUs', 1, 'µs'],
  ['producer, 64 callers of 1 event', 'produceConcurrentRate', 0, 'events/s'],
  ['  CPU per event', 'produceConcurrentCpuUs', 1, 'µs'],
  ['readTopic from the beginning', 'readRate', 0, 'events/s'],
  ['  CPU per event', 'readCpuUs', 1, 'µs'],
  ['end-to-end latency p50', 'latencyP50', 1, 'ms'],
  ['end-to-end latency p99', 'latencyP99', 1, 'ms'],
  ['end-to-end CPU per event', 'e2eCpuUs', 0, 'µs'],
  ['events delivered (of expected)', 'delivered', 0, ''],
  ['process RSS at the end', 'rssMiB', 0, 'MiB'],
];
const [first, second] = KAFKA_CLIENTS;
const median = (client: string, key: string) => {
  const values = runs
    .get(client)!
    .map((f) => f[key] ?? Number.NaN)
    .sort((a, b) => a - b);
  const middle = Math.floor(values.length / 2);
  return values.length % 2 === 1 ? values[middle]! : (values[middle - 1]! + values[middle]!) / 2;
};
const cell = (value: number, digits: number, unit: string) =>
  `${value.toFixed(digits)} ${unit}`.trim().padStart(16);

process.stdout.write(
  `bus benchmark, median of ${settings.rounds} alternating round(s) per client, one process per run\n`,
);
process.stdout.write(`${''.padEnd(34)}${first!.padStart(16)}${second!.padStart(16)}${'ratio'.padStart(8)}\n`);
for (const [label, key, digits, unit] of rows) {
  const a = median(first!, key);
  const b = median(second!, key);
  process.stdout.write(
    `${label.padEnd(34)}${cell(a, digits, unit)}${cell(b, digits, unit)}${(b / a).toFixed(2).padStart(8)}\n`,
  );
}
