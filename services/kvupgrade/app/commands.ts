import { AppError } from '../../../shared/errors.ts';
import { answeredVersions } from '../domain/cluster-facts.ts';
import {
  activeRun,
  nothingToResume,
  previousRunNote,
  type RecordedRun,
  recordedRuns,
  type Standing,
  standing,
} from '../domain/history.ts';
import type { ObservedCluster } from '../domain/incarnation.ts';
import { evaluatePlan, type Plan } from '../domain/plan.ts';
import { checkEvent, distinctEvents, type UpgradeProgress } from '../domain/progress.ts';
import { initialState, type UpgradeState } from '../domain/run-state.ts';
import type { ProgressLog } from '../ports.ts';
import type { OrchestratorDeps } from './deps.ts';
import { gatherSteadyFacts } from './facts.ts';
import { observeCluster } from './observe.ts';
import { createOrchestrator } from './orchestrator.ts';
import { ProgressNotReadError } from './progress-errors.ts';

/** The cluster's events on the topic, its runs, the cluster as it is now, and which run speaks for it. */
export interface ClusterHistory {
  readonly events: UpgradeProgress[];
  readonly runs: readonly RecordedRun[];
  readonly observed: ObservedCluster;
  readonly standing: Standing;
}

export async function loadHistory(
  deps: Pick<OrchestratorDeps, 'spec' | 'etcd' | 'driver'> & { readonly progress: Pick<ProgressLog, 'read'> },
): Promise<ClusterHistory> {
  const [read, observed] = await Promise.all([
    deps.progress.read(deps.spec.name).catch((error: unknown) => {
      throw new ProgressNotReadError(error);
    }),
    observeCluster(deps),
  ]);
  const events = distinctEvents(read);
  const runs = recordedRuns(deps.spec.name, events);
  return { events, runs, observed, standing: standing(runs, observed) };
}

export type RunOutcome =
  | { readonly kind: 'refused'; readonly plan: Plan }
  | {
      readonly kind: 'already-upgraded';
      readonly plan: Plan;
      /** What each member answered in the read that found nothing to do. */
      readonly versions: ObservedCluster['versions'];
      /** The run of this cluster that upgraded it, when one is recorded. */
      readonly upgradedBy: RecordedRun | undefined;
    }
  | { readonly kind: 'finished'; readonly plan: Plan; readonly state: UpgradeState };

/** plan's checks (recorded as events), then the whole upgrade, as a new run. */
export async function runUpgrade(
  deps: OrchestratorDeps,
  input: { readonly allowAuth: boolean; readonly runId: string },
): Promise<RunOutcome> {
  // Reading facts changes nothing, so it overlaps with reading the events.
  const [history, facts] = await Promise.all([
    loadHistory(deps),
    gatherSteadyFacts(deps.spec, deps.etcd, {
      driver: deps.driver,
      binaryVersion: deps.binaryVersion,
      clock: deps.clock,
      sleep: deps.sleep,
      onMoment: deps.onNotice,
      ...(deps.certificates ? { certificates: deps.certificates } : {}),
    }),
  ]);
  const { current } = history.standing;
  const active = activeRun(current);
  if (active) {
    throw new AppError(
      'FAILED_PRECONDITION',
      `cluster ${deps.spec.name} has a run in progress (run ${active.runId}, phase ${active.state.phase}): use resume or rollback`,
    );
  }
  const plan = evaluatePlan(deps.spec, facts, input);
  if (plan.outcome === 'done') {
    const upgradedBy = current?.state.phase === 'completed' ? current : undefined;
    const versions = answeredVersions(facts).map(({ name, server, cluster }) => ({ name, server, cluster }));
    return { kind: 'already-upgraded', plan, versions, upgradedBy };
  }
  const orchestrator = createOrchestrator(deps);
  await orchestrator.startLogCapture();
  const fresh = { ...initialState(deps.spec.name), runId: input.runId };
  const at = deps.clock.now();
  await orchestrator.publish(plan.verdicts.map((v) => checkEvent(fresh, v, deps.events, at)));
  if (plan.outcome === 'refuse') return { kind: 'refused', plan };
  const previous = previousRunNote(deps.spec.name, history.standing, input.runId);
  if (previous) await orchestrator.note(fresh, { step: 'previous-run', message: previous });
  const checked = await orchestrator.commit(initialState(deps.spec.name), {
    type: 'checks-passed',
    runId: input.runId,
    order: plan.order,
    leader: plan.leader!,
    fromVersion: plan.fromVersion!,
    toVersion: plan.toVersion,
    pacingMs: plan.pacingMs,
    incarnation: history.observed.incarnation,
    route: plan.route.releases,
  });
  return { kind: 'finished', plan, state: await orchestrator.drive(checked) };
}

export type ResumeOutcome =
  | { readonly resumed: true; readonly state: UpgradeState }
  | { readonly resumed: false; readonly phase: string; readonly reason: string };

/** Continues an interrupted run of the cluster as it is now, from the state its events describe. */
export async function resumeUpgrade(deps: OrchestratorDeps): Promise<ResumeOutcome> {
  const { standing: now } = await loadHistory(deps);
  const active = activeRun(now.current);
  if (!active)
    return {
      resumed: false,
      phase: now.current?.state.phase ?? 'idle',
      reason: nothingToResume(deps.spec.name, now),
    };
  const orchestrator = createOrchestrator(deps);
  await orchestrator.startLogCapture();
  const resumed = await orchestrator.commit(active.state, { type: 'resumed' });
  return { resumed: true, state: await orchestrator.drive(resumed, { resumed: true }) };
}
