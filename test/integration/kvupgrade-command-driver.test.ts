import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createEtcdCluster, type EtcdTestCluster, waitForHealthy } from '../helpers/etcd-cluster.ts';
import { runKvupgrade } from '../helpers/etcd-kvupgrade.ts';

const infra = inject('infra');
let cluster: EtcdTestCluster;

// Shell templates as an operator would write them for their own service manager: here plain
// background processes with a PID file beside each data folder (an exited, unreaped PID counts as stopped).
const alive = `pid=$(cat {dataDir}.pid 2>/dev/null) && test -e /proc/$pid && ! grep -q '^State:.*Z' /proc/$pid/status`;
const TEMPLATES = {
  kind: 'command',
  start: `nohup {binary} {flags} >> {dataDir}.log 2>&1 & echo $! > {dataDir}.pid`,
  stop: `kill -INT $(cat {dataDir}.pid) && while ${alive}; do sleep 0.05; done`,
  status: alive,
  kill: 'kill -KILL $(cat {dataDir}.pid)',
  check: 'test -f {file}',
};

async function killStarted(c: EtcdTestCluster): Promise<void> {
  for (const m of c.members) {
    const pid = Number((await readFile(`${m.dataDir}.pid`, 'utf8').catch(() => '')).trim());
    const cmdline = pid > 0 ? await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '') : '';
    if (cmdline.includes(m.dataDir)) process.kill(pid, 'SIGKILL');
  }
  await sleep(100);
}

beforeAll(async () => {
  const local = await createEtcdCluster({ infra, basePort: 23910 });
  cluster = await local.rewrite((raw) => {
    raw.driver = TEMPLATES;
  });
  // The members are started through the same start template kvupgrade uses.
  const started = await Promise.all(
    cluster.members.map((m) =>
      runShell(
        TEMPLATES.start
          .replaceAll('{binary}', cluster.bin.etcd34)
          .replaceAll('{flags}', m.flags.join(' '))
          .replaceAll('{dataDir}', m.dataDir),
      ),
    ),
  );
  expect(started).toEqual([0, 0, 0]);
  await waitForHealthy(cluster.etcd, cluster.members);
});
afterAll(async () => {
  if (cluster) await killStarted(cluster);
  await cluster?.destroy();
});

async function runShell(command: string): Promise<number | null> {
  const { spawn } = await import('node:child_process');
  return new Promise((resolve) =>
    spawn('/bin/sh', ['-c', command], { stdio: 'ignore' }).on('close', resolve),
  );
}

describe('kvupgrade with the command-template driver', () => {
  it('upgrades members it starts and stops only through the templates', async () => {
    const run = await runKvupgrade(infra, ['run', '--cluster', cluster.file]);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    // v2 data size cannot be read through templates, so plan applies the pacing rule (0 s here).
    expect(run.stdout).toContain('check v2-data: warn: v2 data size unknown');
    // The v3 database is looked for through driver.check; the process through driver.status.
    expect(run.stdout).toContain('check v3-database: pass: every member has its v3 database');
    expect(run.stdout).toMatch(/check processes: pass: one running process per member, .*: m1, m2, m3/);
    for (const member of cluster.members) {
      expect(await cluster.etcd.version(member.clientUrl)).toEqual({ server: '3.5.16', cluster: '3.5.0' });
    }
  });
});
