import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  createEtcdCluster,
  type EtcdTestCluster,
  type TestMember,
  waitForHealthy,
} from '../helpers/etcd-cluster.ts';
import { progressEvents, runKvupgrade, story } from '../helpers/etcd-kvupgrade.ts';
import { readPrefix, startWriter } from '../helpers/etcd-writer.ts';
import { waitFor } from '../helpers/wait-for.ts';

const infra = inject('infra');
let cluster: EtcdTestCluster;
const byHand = new Map<string, number>();

/** `--name=m1` as the operator typed it: `--name m1`, two arguments (the cluster file keeps `--name=m1`). */
const splitForm = (flags: readonly string[]) =>
  flags.flatMap((f) => {
    const eq = f.indexOf('=');
    return eq > 0 ? [f.slice(0, eq), f.slice(eq + 1)] : [f];
  });

/** Starts a member as an operator would, outside kvupgrade: no PID file, flags in the two-argument form. */
async function startByHand(member: TestMember, extra: string[] = []): Promise<number> {
  const fd = openSync(join(cluster.dir, `${member.name}.by-hand.log`), 'a');
  try {
    const child = spawn(cluster.bin.etcd34, [...splitForm(member.flags), ...extra], {
      detached: true,
      stdio: ['ignore', fd, fd],
    });
    child.unref();
    await new Promise((resolve) => child.once('spawn', resolve));
    byHand.set(member.name, child.pid!);
    return child.pid!;
  } finally {
    closeSync(fd);
  }
}

async function stopByHand(member: TestMember): Promise<void> {
  const pid = byHand.get(member.name)!;
  process.kill(pid, 'SIGINT');
  await waitFor(
    `${member.name} (pid ${pid}) gone`,
    async () => (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')) === '',
  );
}

const jsonLines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

const alive = async (pid: number) => (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')) !== '';

beforeAll(async () => {
  cluster = await createEtcdCluster({ infra, basePort: 24050 });
  for (const m of cluster.members) await startByHand(m);
  await waitForHealthy(cluster.etcd, cluster.members);
});
afterAll(async () => {
  await cluster?.destroy();
});

describe('kvupgrade on members started by hand as `--name m1` while the cluster file says `--name=m1`', () => {
  it('plan finds exactly one process per member, its flags the same as etcd parses them', async () => {
    const plan = await runKvupgrade(infra, ['plan', '--cluster', cluster.file]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    const pids = cluster.members.map((m) => `${m.name} pid ${byHand.get(m.name)}`).join(', ');
    expect(plan.stdout).toContain(
      `[ok] processes: one running process per member, started with the cluster file's flags: ${pids}`,
    );
    expect(plan.stdout).toContain('[ok] v3-database: every member has its v3 database (member/snap/db)');
  });

  it('plan refuses (exit 3) a member with no process, naming it and what it looked for', async () => {
    const m3 = cluster.members[2]!;
    await stopByHand(m3);
    try {
      const plan = await runKvupgrade(infra, ['plan', '--cluster', cluster.file]);
      expect(plan.code).toBe(3);
      expect(plan.stdout).toContain(
        `[REFUSE] processes: m3: no running process found, expected exactly one; looked for a running process with --name=m3 and --data-dir=${m3.dataDir} (in /proc/*/cmdline; PID file ${join(cluster.dir, 'run', 'm3.pid')})`,
      );
    } finally {
      await startByHand(m3);
      await waitForHealthy(cluster.etcd, cluster.members);
    }
  });

  it('plan refuses a member running with other flags than the cluster file, naming the flag', async () => {
    const m2 = cluster.members[1]!;
    await stopByHand(m2);
    const pid = await startByHand(m2, ['--snapshot-count', '5000']);
    try {
      await waitForHealthy(cluster.etcd, cluster.members);
      const plan = await runKvupgrade(infra, ['plan', '--cluster', cluster.file]);
      expect(plan.code).toBe(3);
      expect(plan.stdout).toContain(
        `[REFUSE] processes: m2 (pid ${pid}) runs with other flags than the cluster file, which every restart uses: --snapshot-count=5000 is not in the cluster file`,
      );
    } finally {
      await stopByHand(m2);
      await startByHand(m2);
      await waitForHealthy(cluster.etcd, cluster.members);
    }
  });

  it('plan and run refuse a member whose data folder has no v3 database (member/snap/db), naming the member and the file', async () => {
    const m1 = cluster.members[0]!;
    const db = join(m1.dataDir, 'member', 'snap', 'db');
    // The running member keeps its open database; its folder no longer has one, as after a v2 migration.
    await rename(db, `${db}.aside`);
    try {
      const plan = await runKvupgrade(infra, ['plan', '--cluster', cluster.file]);
      expect(plan.code).toBe(3);
      expect(plan.stdout).toContain(
        `[REFUSE] v3-database: m1 has no v3 database (${db} is missing): a server migrated from v2 that never wrote v3 data panics when 3.2+ restores from its snapshots`,
      );
      expect(plan.stdout.match(/\[REFUSE\]/g)).toHaveLength(1);
      const run = await runKvupgrade(infra, ['run', '--cluster', cluster.file]);
      expect(run.code).toBe(3);
      expect(run.stdout).toContain(`check v3-database: refuse: m1 has no v3 database (${db} is missing)`);
      // For a pipeline: one JSON document per check, then the plan and the result.
      const asJson = await runKvupgrade(infra, ['plan', '--cluster', cluster.file, '--output', 'json']);
      expect(asJson.code).toBe(3);
      const docs = jsonLines(asJson.stdout);
      expect(docs.filter((d) => d.type === 'check' && d.status === 'refuse')).toEqual([
        { type: 'check', check: 'v3-database', status: 'refuse', message: expect.stringContaining(db) },
      ]);
      expect(docs.at(-2)).toMatchObject({
        type: 'plan',
        cluster: cluster.name,
        outcome: 'refuse',
        refused: ['v3-database'],
      });
      expect(docs.at(-1)).toEqual({
        type: 'result',
        command: 'plan',
        cluster: cluster.name,
        cluster_file: cluster.file,
        outcome: 'refuse',
        phase: null,
        exit_code: 3,
        message: 'plan: refuse',
      });
      for (const m of cluster.members) expect(await alive(byHand.get(m.name)!)).toBe(true);
      expect(story(await progressEvents(infra, cluster.name))).toEqual([]);
    } finally {
      await rename(`${db}.aside`, db);
    }
  });

  it('run stops each member for real, starts 3.5 on free ports and records the new PIDs; no write lost', async () => {
    const endpoints = cluster.members.map((m) => m.clientUrl);
    const writer = startWriter(endpoints);
    const run = await runKvupgrade(infra, ['run', '--cluster', cluster.file, '--output', 'json']);
    const report = await writer.stop();
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).not.toContain('address already in use');
    // --output json: every check and step as an event document, then the result.
    const docs = jsonLines(run.stdout);
    expect(docs.filter((d) => d.type === 'event' && d.kind === 'check').map((d) => d.step)).toContain(
      'processes',
    );
    expect(
      docs.filter((d) => d.type === 'event' && d.kind === 'transition' && d.step === 'member-stopped'),
    ).toHaveLength(3);
    expect(docs.at(-1)).toMatchObject({ type: 'result', command: 'run', outcome: 'completed', exit_code: 0 });
    for (const m of cluster.members) {
      expect(await cluster.etcd.version(m.clientUrl)).toEqual({ server: '3.5.16', cluster: '3.5.0' });
      // The hand-started 3.4 process is gone; the PID file names the live 3.5 process.
      expect(await alive(byHand.get(m.name)!)).toBe(false);
      const pid = Number((await readFile(join(cluster.dir, 'run', `${m.name}.pid`), 'utf8')).trim());
      expect(pid).not.toBe(byHand.get(m.name));
      expect(await readFile(`/proc/${pid}/cmdline`, 'utf8')).toContain(`--name=${m.name}`);
    }
    // A start while the member runs is refused and its PID file stays as it is.
    const m1 = cluster.spec.members[0]!;
    const pidFile = join(cluster.dir, 'run', 'm1.pid');
    const before = await readFile(pidFile, 'utf8');
    await expect(cluster.driver.start(m1, cluster.bin.etcd35, '3.5.16')).rejects.toThrow(
      `m1 is already running (pid ${before.trim()})`,
    );
    expect(await readFile(pidFile, 'utf8')).toBe(before);

    const events = await progressEvents(infra, cluster.name);
    const stops = events.filter((e) => e.step === 'member-stopped');
    expect(stops).toHaveLength(3);
    expect(stops.every((e) => (e.elapsed_ms ?? 0) > 0)).toBe(true);
    expect(report.failed).toEqual([]);
    const stored = await readPrefix(endpoints[0]!, 'w/');
    expect(report.acknowledged.filter((key) => !stored.has(key))).toEqual([]);
  });
});
