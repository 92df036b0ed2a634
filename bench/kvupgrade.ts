// kvupgrade benchmark: a real 3-member cluster taken along the route etcd users take today,
// 3.4.23 -> 3.5.35 -> 3.6.16 -> 3.7.3, one row per hop: its wall time (its checks to its cluster
// version) beside its floor (each member's stop-to-healthy time plus the wait for the cluster
// version), and the longest stall a client writing through all three endpoints saw during it, with
// every acknowledged write read back at the end. Bounded: BENCH_RUNS routes (default 1) of ~30 s,
// each cluster on fresh ports and temp folders, plain then with client and peer TLS (BENCH_TLS=0 skips it).
import { join } from 'node:path';
import { readProgressEvents } from '../services/kvupgrade/adapters/progress-topic.ts';
import type { UpgradeProgress } from '../services/kvupgrade/domain/progress.ts';
import { createBus, kafkaSettings, TOPICS } from '../shared/bus/index.ts';
import { silentLogger } from '../shared/logger.ts';
import { int, readSettings, str } from '../shared/settings.ts';
import { createEtcdCluster } from '../test/helpers/etcd-cluster.ts';
import { runKvupgrade } from '../test/helpers/etcd-kvupgrade.ts';
import { readPrefix, startWriter, type WriterReport } from '../test/helpers/etcd-writer.ts';
import type { InfraEnv } from '../test/integration/global-setup.ts';

const CACHE = join(import.meta.dirname, '..', '.infra', 'cache');
const settings = readSettings(
  {
    ...kafkaSettings,
    runs: int('BENCH_RUNS', 1, { min: 1, max: 10 }),
    basePort: int('BENCH_BASE_PORT', 24110, { min: 1024, max: 64000 }),
    tls: int('BENCH_TLS', 1, { min: 0, max: 1 }),
    cache: str('INFRA_CACHE', CACHE, 'the folder of the etcd releases (infra.sh)'),
  },
  process.env,
);
const RELEASES = ['3.4.23', '3.5.35', '3.6.16', '3.7.3'] as const;
const dir = (v: string) => join(settings.cache, `etcd-${v}`, 'usr', 'bin');
const infra = {
  KAFKA_BROKERS: settings.kafkaBrokers.join(','),
  ETCD34_BIN_DIR: dir('3.4.23'),
  ETCD35_BIN_DIR: dir('3.5.16'),
  ETCD_RELEASES: RELEASES.map((v) => `${v}=${dir(v)}`).join(','),
} as InfraEnv;
const bus = createBus({ brokers: settings.kafkaBrokers, clientId: 'bench-kvupgrade', logger: silentLogger });

interface HopRow {
  hop: string;
  wallMs: number;
  floorMs: number;
  stallMs: number;
  writes: number;
}

const time = (e: UpgradeProgress) => new Date(e.occurred_at).getTime();

/** Each hop from its checks to its cluster version, with the writes that started during it. */
function hopRows(events: readonly UpgradeProgress[], report: WriterReport): HopRow[] {
  const transitions = events.filter((e) => e.kind === 'transition');
  const starts = transitions.filter((e) => e.step === 'checks-passed' || e.step === 'hop-checks-passed');
  const ends = transitions.filter((e) => e.step === 'hop-completed' || e.step === 'cluster-version-updated');
  return ends.map((end, i) => {
    const from = time(starts[i]!);
    const to = time(end);
    const inHop = transitions.filter((e) => time(e) >= from && time(e) <= to);
    const floorMs =
      inHop.filter((e) => e.step === 'member-upgraded').reduce((a, e) => a + (e.elapsed_ms ?? 0), 0) +
      (end.elapsed_ms ?? 0);
    const writes = report.writes.filter((w) => w.at >= from && w.at <= to);
    return {
      hop: `${end.route[i]} -> ${end.route[i + 1]}`,
      wallMs: to - from,
      floorMs,
      stallMs: Math.max(0, ...writes.map((w) => w.ms)),
      writes: writes.length,
    };
  });
}

async function once(run: number, tls: boolean): Promise<HopRow[]> {
  const cluster = await createEtcdCluster({
    infra,
    basePort: settings.basePort + run * 100 + (tls ? 50 : 0),
    tls,
    release: '3.4.23',
    target: '3.7.3',
    via: ['3.5.35', '3.6.16'],
    tools: '3.5.35',
    // A 3.6 member must snapshot before 3.7 (docs/kvupgrade-paths.md): a small snapshot count does it soon.
    extraFlags: () => ['--logger=zap', '--log-outputs=stderr', '--snapshot-count=100'],
  });
  try {
    await cluster.start();
    const endpoints = cluster.members.map((m) => m.clientUrl);
    const writer = startWriter(endpoints, cluster.tls ? { tls: cluster.tls } : {});
    const result = await runKvupgrade(infra, ['run', '--cluster', cluster.file]);
    const report = await writer.stop();
    if (result.code !== 0)
      throw new Error(`run ${run} failed (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
    if (report.failed.length > 0) throw new Error(`run ${run}: ${report.failed.length} writes failed`);
    const stored = await readPrefix(endpoints[0]!, 'w/', cluster.tls);
    const lost = report.acknowledged.filter((key) => stored.get(key) !== `v${Number(key.slice(2))}`);
    if (lost.length > 0) throw new Error(`run ${run}: ${lost.length} acknowledged writes lost`);
    return hopRows(await readProgressEvents(bus, TOPICS.upgradeProgress.name, cluster.name), report);
  } finally {
    await cluster.destroy();
  }
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const print = (text: string): void => void process.stdout.write(`${text}\n`);

const summary: string[] = [];
for (const tls of settings.tls === 1 ? [false, true] : [false]) {
  const kind = tls ? 'TLS (client and peer, client certificates)' : 'plain HTTP';
  print(
    `kvupgrade, ${kind}: route ${RELEASES.join(' -> ')} on 3 members, a client writing through all endpoints\n`,
  );
  for (let run = 0; run < settings.runs; run++) {
    for (const row of await once(run, tls)) {
      const line =
        `${tls ? 'TLS  ' : 'plain'} ${row.hop.padEnd(18)} wall ${s(row.wallMs)} | floor ${s(row.floorMs)} | ` +
        `longest write stall ${row.stallMs} ms over ${row.writes} writes | 0 acknowledged writes lost`;
      print(`run ${run + 1}: ${line}`);
      summary.push(line);
    }
  }
  print('');
}
print(`summary (one row per hop):\n${summary.map((l) => `  ${l}`).join('\n')}`);
await bus.close();
process.exit(0);
