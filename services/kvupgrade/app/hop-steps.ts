// Between two hops of a route: the next hop's checks, judged on the cluster as the last hop left it.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../../../shared/errors.ts';
import { evaluatePlan } from '../domain/plan.ts';
import { checkEvent } from '../domain/progress.ts';
import { routeText } from '../domain/route.ts';
import type { UpgradeState } from '../domain/run-state.ts';
import { minorOf } from '../domain/versions.ts';
import { gatherSteadyFacts } from './facts.ts';
import type { StepContext } from './member-control.ts';

/** The next hop's checks refused: the run stays between hops, the cluster on the last hop's release. */
export class HopRefusedError extends AppError {
  constructor(message: string) {
    super('FAILED_PRECONDITION', message);
    this.name = 'HopRefusedError';
  }
}

/** The raft index of a member's newest v2 snapshot (`member/snap/<term>-<index>.snap`, hex); 0 when none. */
async function newestSnapshotIndex(dataDir: string): Promise<number | undefined> {
  const names = await readdir(join(dataDir, 'member', 'snap')).catch(() => undefined);
  if (!names) return undefined;
  const snaps = names.filter((n) => /^[0-9a-f]{16}-[0-9a-f]{16}\.snap$/.test(n)).sort();
  return snaps.length === 0 ? 0 : Number.parseInt(snaps.at(-1)!.slice(17, 33), 16);
}

/**
 * Observed here: a 3.6 member whose WAL since its last snapshot still holds entries 3.5 wrote panics
 * on 3.7.3 replaying them ("unmarshal should never fail"). Each member must have snapshotted past the
 * index where 3.6 took over; a busy cluster does so within --snapshot-count applied entries.
 */
async function waitForSnapshotsPast(ctx: StepContext, state: UpgradeState): Promise<void> {
  const { deps, recorder } = ctx;
  const index = state.hopRaftIndex;
  if (index === undefined || deps.spec.driver.kind !== 'local') return;
  const deadline = deps.clock.now() + deps.spec.options.gateTimeoutSeconds * 1000;
  let noted = false;
  for (;;) {
    const behind: string[] = [];
    for (const m of deps.spec.members) {
      const at = await newestSnapshotIndex(m.dataDir);
      if (at !== undefined && at <= index) behind.push(`${m.name} (newest snapshot at index ${at})`);
    }
    if (behind.length === 0) return;
    if (deps.clock.now() >= deadline)
      throw new HopRefusedError(
        `not every member has snapshotted since 3.6 took over at raft index ${index}: ${behind.join(', ')}; 3.7 would replay 3.5's entries from its WAL and stop (docs/kvupgrade-paths.md). Resume once each has (every --snapshot-count applied entries, 10000 by default)`,
      );
    if (!noted)
      await recorder.note(state, {
        step: 'awaiting-3.6-snapshots',
        message: `waiting for a 3.6 snapshot past raft index ${index} on ${behind.join(', ')} before 3.7`,
      });
    noted = true;
    await deps.sleep(deps.spec.options.pollIntervalMs * 5);
  }
}

/** plan's checks for the rest of the route (recorded as check events), then the next hop's order. */
export async function nextHop(ctx: StepContext, state: UpgradeState): Promise<UpgradeState> {
  const { deps, recorder } = ctx;
  if (minorOf(state.route[state.hop + 2] ?? '') === '3.7' && minorOf(state.route[state.hop] ?? '') === '3.5')
    await waitForSnapshotsPast(ctx, state);
  const facts = await gatherSteadyFacts(deps.spec, deps.etcd, {
    driver: deps.driver,
    binaryVersion: deps.binaryVersion,
    clock: deps.clock,
    sleep: deps.sleep,
    onMoment: deps.onNotice,
    ...(deps.certificates ? { certificates: deps.certificates } : {}),
  });
  // Auth matters to the 3.4 -> 3.5 hop only, which is always a route's first.
  const plan = evaluatePlan(deps.spec, facts, { allowAuth: false });
  const at = deps.clock.now();
  await recorder.publish(plan.verdicts.map((v) => checkEvent(state, v, deps.events, at)));
  const rest = state.route.slice(state.hop + 1);
  const refused = plan.verdicts.filter((v) => v.status === 'refuse');
  if (refused.length > 0)
    throw new HopRefusedError(
      `hop ${state.hop + 2} of ${state.route.length - 1} refused: ${refused.map((v) => `${v.check}: ${v.message}`).join('; ')}`,
    );
  if (routeText(plan.route.releases) !== routeText(rest) || !plan.leader)
    throw new HopRefusedError(
      `the rest of the route is ${routeText(rest)}, but the cluster and its file now give ${routeText(plan.route.releases) || 'none'}`,
    );
  return recorder.commit(state, {
    type: 'hop-checks-passed',
    order: plan.order,
    leader: plan.leader,
    pacingMs: plan.pacingMs,
  });
}
