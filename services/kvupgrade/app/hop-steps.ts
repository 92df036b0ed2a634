// Between two hops of a route: the next hop's checks, judged on the cluster as the last hop left it.
import { AppError } from '../../../shared/errors.ts';
import { evaluatePlan } from '../domain/plan.ts';
import { checkEvent } from '../domain/progress.ts';
import { routeText } from '../domain/route.ts';
import type { UpgradeState } from '../domain/run-state.ts';
import { gatherFacts } from './facts.ts';
import type { StepContext } from './member-control.ts';

/** The next hop's checks refused: the run stays between hops, the cluster on the last hop's release. */
export class HopRefusedError extends AppError {
  constructor(message: string) {
    super('FAILED_PRECONDITION', message);
    this.name = 'HopRefusedError';
  }
}

/** plan's checks for the rest of the route (recorded as check events), then the next hop's order. */
export async function nextHop(ctx: StepContext, state: UpgradeState): Promise<UpgradeState> {
  const { deps, recorder } = ctx;
  const facts = await gatherFacts(deps.spec, deps.etcd, {
    driver: deps.driver,
    binaryVersion: deps.binaryVersion,
    now: deps.clock.now(),
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
