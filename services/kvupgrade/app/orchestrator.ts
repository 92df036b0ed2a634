import { type Action, IllegalTransitionError, nextAction } from '../domain/machine.ts';
import type { UpgradeState } from '../domain/run-state.ts';
import type { OrchestratorDeps } from './deps.ts';
import { downgrade } from './downgrade-steps.ts';
import { HopRefusedError, nextHop } from './hop-steps.ts';
import type { StepContext } from './member-control.ts';
import { ProgressNotRecordedError } from './progress-errors.ts';
import { createProgressRecorder, type ProgressRecorder } from './progress-recorder.ts';
import { restore, rollBack } from './rollback-steps.ts';
import {
  awaitClusterVersion,
  gateCurrent,
  saveSnapshot,
  startCurrent,
  stopCurrent,
  upgradeNextMember,
} from './upgrade-steps.ts';

export { ProgressNotRecordedError } from './progress-errors.ts';

export interface Orchestrator extends ProgressRecorder {
  /**
   * Runs actions until the run ends (completed, rolled back, restored, downgraded or failed), or stops
   * between two hops of a route (options.pauseBetweenHops, or the next hop's checks refused).
   */
  drive(state: UpgradeState, options?: { resumed?: boolean }): Promise<UpgradeState>;
}

type Step = (ctx: StepContext, state: UpgradeState, resumed: boolean) => Promise<UpgradeState>;

/** What each action of the state machine runs. */
const STEPS: Record<Exclude<Action, 'none'>, Step> = {
  'save-snapshot': saveSnapshot,
  'upgrade-next-member': upgradeNextMember,
  'finish-members': (ctx, state) => ctx.recorder.commit(state, { type: 'all-members-upgraded' }),
  'stop-member': stopCurrent,
  'start-member': startCurrent,
  'gate-member': gateCurrent,
  'await-cluster-version': awaitClusterVersion,
  'roll-back': rollBack,
  restore,
  'next-hop': nextHop,
  downgrade,
};

const message = (error: unknown) => (error as Error).message ?? String(error);

export function createOrchestrator(deps: OrchestratorDeps): Orchestrator {
  const recorder = createProgressRecorder(deps);
  const ctx: StepContext = { deps, recorder };

  /** A failed step is a transition too: before the point of no return it starts the rollback. */
  function failure(state: UpgradeState, error: unknown): Promise<UpgradeState> {
    deps.logger.warn({ err: error, phase: state.phase }, 'step failed');
    const failed = { member: state.current, error: message(error) };
    if (state.phase === 'rolling-back') return recorder.commit(state, { type: 'rollback-failed', ...failed });
    if (state.phase === 'restoring') return recorder.commit(state, { type: 'restore-failed', ...failed });
    if (state.phase === 'downgrading') return recorder.commit(state, { type: 'downgrade-failed', ...failed });
    return recorder.commit(state, { type: 'step-failed', ...failed });
  }

  return {
    ...recorder,
    async drive(initial, options = {}) {
      let state = initial;
      let resumed = options.resumed === true;
      for (let action = nextAction(state); action !== 'none'; action = nextAction(state)) {
        if (state.phase === 'between-hops' && state !== initial && deps.spec.options.pauseBetweenHops) break;
        try {
          state = await STEPS[action](ctx, state, resumed);
        } catch (error) {
          // An unrecorded event stops the run as it is: a rollback would be a step of its own, unrecorded too.
          if (error instanceof ProgressNotRecordedError || error instanceof IllegalTransitionError)
            throw error;
          if (error instanceof HopRefusedError) {
            deps.onNotice(error.message);
            break;
          }
          state = await failure(state, error);
        }
        resumed = false;
      }
      return state;
    },
  };
}
