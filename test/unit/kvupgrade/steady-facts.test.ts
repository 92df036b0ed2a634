import { describe, expect, it } from 'vitest';
import { gatherSteadyFacts, STEADY_PAUSE_MS, STEADY_READS } from '../../../services/kvupgrade/app/facts.ts';
import { momentaryReason } from '../../../services/kvupgrade/domain/cluster-facts.ts';
import { evaluatePlan } from '../../../services/kvupgrade/domain/plan.ts';
import type { EtcdClient } from '../../../services/kvupgrade/ports.ts';
import { AppError } from '../../../shared/errors.ts';
import { createFakeCluster } from '../../helpers/kvupgrade-fake-cluster.ts';

// A busy host or an election must not refuse a healthy cluster: the facts are read again, a few
// times, while they may show only a moment; a member that is down is judged at once.
function reading(change: (etcd: EtcdClient, read: () => number) => EtcdClient) {
  const world = createFakeCluster();
  let reads = 0;
  const pauses: number[] = [];
  const moments: string[] = [];
  const etcd = change(world.deps.etcd, () => reads);
  const gather = () =>
    gatherSteadyFacts(
      world.spec,
      {
        ...etcd,
        // /health is the first call of each read: the count is the read under way.
        health: (url) => {
          if (url === world.spec.members[0]!.clientUrl) reads += 1;
          return etcd.health(url);
        },
      },
      {
        driver: world.deps.driver,
        binaryVersion: world.deps.binaryVersion,
        clock: world.deps.clock,
        sleep: async (ms) => {
          pauses.push(ms);
        },
        onMoment: (message) => moments.push(message),
      },
    );
  return { world, gather, pauses, moments, reads: () => reads };
}

const noAnswer = (url: string, path: string) =>
  new AppError('DEADLINE_EXCEEDED', `${url}${path}: no answer in 2000 ms`);

describe('facts read again while they may show a moment', () => {
  it('a member that answers /health and /metrics late on the first read is read again and passes', async () => {
    const m1 = 'http://127.0.0.1:2379';
    const { world, gather, pauses, moments, reads } = reading((etcd, read) => ({
      ...etcd,
      health: async (url) => {
        if (url === m1 && read() === 1) throw noAnswer(url, '/health');
        return etcd.health(url);
      },
      isLeader: async (url) => {
        if (url === m1 && read() === 1) throw noAnswer(url, '/metrics');
        return etcd.isLeader(url);
      },
    }));
    const facts = await gather();
    expect(reads()).toBe(2);
    expect(pauses).toEqual([STEADY_PAUSE_MS]);
    expect(moments).toEqual([
      `no answer in time from m1 (/health, /metrics): reading the cluster again in ${STEADY_PAUSE_MS} ms`,
    ]);
    expect(momentaryReason(facts)).toBeUndefined();
    expect(evaluatePlan(world.spec, facts, { allowAuth: false }).outcome).not.toBe('refuse');
  });

  it('an election (no member leads) is waited out', async () => {
    const { gather, moments, reads } = reading((etcd, read) => ({
      ...etcd,
      isLeader: async (url) => (read() < 3 ? false : etcd.isLeader(url)),
    }));
    const facts = await gather();
    expect(reads()).toBe(3);
    expect(moments).toHaveLength(2);
    expect(moments[0]).toBe(
      `no member leads (an election may be under way): reading the cluster again in ${STEADY_PAUSE_MS} ms`,
    );
    expect(facts.members.filter((m) => m.isLeader).map((m) => m.name)).toEqual(['m2']);
  });

  it(`a member that stays silent is judged on the last of ${STEADY_READS} reads, refused, naming it`, async () => {
    const m3 = 'http://127.0.0.1:2381';
    const { world, gather, pauses, reads } = reading((etcd) => ({
      ...etcd,
      health: async (url) => {
        if (url === m3) throw noAnswer(url, '/health');
        return etcd.health(url);
      },
    }));
    const facts = await gather();
    expect(reads()).toBe(STEADY_READS);
    expect(pauses).toHaveLength(STEADY_READS - 1);
    const plan = evaluatePlan(world.spec, facts, { allowAuth: false });
    expect(plan.verdicts.find((v) => v.check === 'health')).toEqual({
      check: 'health',
      status: 'refuse',
      message: `unhealthy: m3 (${m3}/health: no answer in 2000 ms)`,
    });
  });

  it('a member that refuses connections is not a moment: one read, refused at once', async () => {
    const { world, gather, pauses, reads } = reading((etcd) => etcd);
    await world.deps.driver.stop(world.spec.members[2]!, 1000);
    const facts = await gather();
    expect(reads()).toBe(1);
    expect(pauses).toEqual([]);
    expect(momentaryReason(facts)).toBeUndefined();
    expect(evaluatePlan(world.spec, facts, { allowAuth: false }).outcome).toBe('refuse');
  });
});
