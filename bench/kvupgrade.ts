// kvupgrade benchmark: the wall time of a real 3-member 3.4.23 -> 3.5.16 upgrade beside its floor
// (each member's stop-to-healthy time plus the wait for the cluster version, which no orchestrator
// can avoid), and the longest stall a client writing through all three endpoints sees.
// Bounded: BENCH_RUNS runs of a few seconds each, every cluster on fresh ports and temp folders; the
// same on a cluster with client and peer TLS and client certificate authentication (BENCH_TLS=0 skips it).
import { join } from 'node:path';
import { readProgressEvents } from '../services/kvupgrade/adapters/progress-topic.ts';
import { createBus, kafkaSettings, TOPICS } from '../shared/bus/index.ts';
import { silentLogger } from '../shared/logger.ts';
import { int, readSettings, str } from '../shared/settings.ts';
import { createEtcdCluster } from '../test/helpers/etcd-cluster.ts';
import { runKvupgrade } from '../test/helpers/etcd-kvupgrade.ts';
import { startWriter } from '../test/helpers/etcd-writer.ts';
import type { InfraEnv } from '../test/integration/global-setup.ts';
import { percentile } from './stats.ts';

const CACHE = join(import.meta.dirname, '..', '.infra', 'cache');
const settings = readSettings(
  {
    ...kafkaSettings,
    runs: int('BENCH_RUNS', 3, { min: 1, max: 10 }),
    basePort: int('BENCH_BASE_PORT', 24110, { min: 1024, max: 64000 }),
    tls: int('BENCH_TLS', 1, { min: 0, max: 1 }),
    etcd34: str(
      'ETCD34_BIN_DIR',
      join(CACHE, 'etcd-3.4.23', 'usr', 'bin'),
      'the folder of the etcd 3.4 binaries',
    ),
    etcd35: str(
      'ETCD35_BIN_DIR',
      join(CACHE, 'etcd-3.5.16', 'usr', 'bin'),
      'the folder of the etcd 3.5 binaries',
    ),
  },
  process.env,
);
const infra = {
  KAFKA_BROKERS: settings.kafkaBrokers.join(','),
  ETCD34_BIN_DIR: settings.etcd34,
  ETCD35_BIN_DIR: settings.etcd35,
} as InfraEnv;
const bus = createBus({ brokers: settings.kafkaBrokers, clientId: 'bench-kvupgrade', logger: silentLogger });

interface Sample {
  cliMs: number;
  runMs: number;
  floorMs: number;
  stopToHealthyMs: number[];
  clusterVersionMs: number;
  stallMs: number;
  writes: number;
  failovers: number;
}

async function once(run: number, tls: boolean): Promise<Sample> {
  const cluster = await createEtcdCluster({
    infra,
    basePort: settings.basePort + run * 100 + (tls ? 50 : 0),
    tls,
  });
  try {
    await cluster.start();
    const writer = startWriter(
      cluster.members.map((m) => m.clientUrl),
      cluster.tls ? { tls: cluster.tls } : {},
    );
    const started = performance.now();
    const result = await runKvupgrade(infra, ['run', '--cluster', cluster.file]);
    const cliMs = performance.now() - started;
    const report = await writer.stop();
    if (result.code !== 0)
      throw new Error(`run ${run} failed (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
    if (report.failed.length > 0) throw new Error(`run ${run}: ${report.failed.length} writes failed`);
    const events = await readProgressEvents(bus, TOPICS.upgradeProgress.name, cluster.name);
    const transitions = events.filter((e) => e.kind === 'transition');
    const at = (step: string) => new Date(transitions.find((e) => e.step === step)!.occurred_at).getTime();
    const stopToHealthyMs = transitions
      .filter((e) => e.step === 'member-upgraded')
      .map((e) => e.elapsed_ms ?? 0);
    const clusterVersionMs = transitions.find((e) => e.step === 'cluster-version-updated')!.elapsed_ms ?? 0;
    // The run: from the first check event to the cluster version on every member.
    const runMs = at('cluster-version-updated') - new Date(events[0]!.occurred_at).getTime();
    return {
      cliMs,
      runMs,
      floorMs: stopToHealthyMs.reduce((a, b) => a + b, 0) + clusterVersionMs,
      stopToHealthyMs,
      clusterVersionMs,
      stallMs: report.longestStallMs,
      writes: report.acknowledged.length,
      failovers: report.failedOver,
    };
  } finally {
    await cluster.destroy();
  }
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const median = (values: number[]) => percentile(values, 50);
const print = (text: string): void => void process.stdout.write(`${text}\n`);

async function series(tls: boolean): Promise<string> {
  const kind = tls ? 'TLS (client and peer, client certificates)' : 'plain HTTP';
  print(
    `kvupgrade, ${kind}: ${settings.runs} runs of a 3-member etcd 3.4.23 -> 3.5.16 upgrade, a client writing through all endpoints\n`,
  );
  const samples: Sample[] = [];
  for (let run = 0; run < settings.runs; run++) {
    const sample = await once(run, tls);
    samples.push(sample);
    const overhead = sample.runMs - sample.floorMs;
    print(
      `run ${run + 1}: wall ${s(sample.runMs)} (CLI process ${s(sample.cliMs)}) | floor ${s(sample.floorMs)} ` +
        `= stop-to-healthy ${sample.stopToHealthyMs.map(s).join(' + ')} + cluster version ${s(sample.clusterVersionMs)} | ` +
        `overhead ${s(overhead)} (${((100 * overhead) / sample.floorMs).toFixed(1)}% of the floor) | ` +
        `longest write stall ${sample.stallMs} ms, ${sample.writes} writes, ${sample.failovers} failed over, 0 failed`,
    );
  }
  const runMs = median(samples.map((x) => x.runMs));
  const floorMs = median(samples.map((x) => x.floorMs));
  const overheadPct = median(samples.map((x) => (100 * (x.runMs - x.floorMs)) / x.floorMs));
  const summary =
    `wall ${s(runMs)}, floor ${s(floorMs)}, overhead ${overheadPct.toFixed(1)}% of the floor (goal < 20%), ` +
    `longest write stall ${median(samples.map((x) => x.stallMs))} ms (worst ${Math.max(...samples.map((x) => x.stallMs))} ms)`;
  print(`\nmedian (${kind}): ${summary}\n`);
  return `${tls ? 'TLS  ' : 'plain'}: ${summary}`;
}

const summaries = [await series(false)];
if (settings.tls === 1) summaries.push(await series(true));
print(`summary (medians of ${settings.runs} runs each):\n${summaries.map((l) => `  ${l}`).join('\n')}`);
await bus.close();
process.exit(0);
