// Starting and stopping one member, each confirmed: what every step that touches a process uses.
import type { MemberSpec } from '../domain/member-spec.ts';
import type { UpgradeState } from '../domain/run-state.ts';
import type { OrchestratorDeps } from './deps.ts';
import { confirmStartable, confirmStopped } from './gates.ts';
import type { ProgressRecorder } from './progress-recorder.ts';

/** How long after its process is gone a member's ports may stay taken before the stop counts as failed. */
const PORTS_FREE_MS = 5000;

/** What a step works with: the ports, and the recorder of its events. */
export interface StepContext {
  readonly deps: OrchestratorDeps;
  readonly recorder: ProgressRecorder;
}

export const gateTimeoutMs = (deps: OrchestratorDeps) => deps.spec.options.gateTimeoutSeconds * 1000;

/** Starts `binary` once the member's ports are free; a restarted member forgets its auth token. */
export async function startMember(
  { deps }: StepContext,
  member: MemberSpec,
  binary: string,
  version: string,
): Promise<void> {
  await confirmStartable(deps, member);
  await deps.driver.start(member, binary, version);
  deps.etcd.forgetToken(member.clientUrl);
}

/** Stops through the driver, then confirms: the process gone and the member's ports free. */
export async function stopMember({ deps }: StepContext, member: MemberSpec): Promise<{ escalated: boolean }> {
  const outcome = await deps.driver.stop(member, deps.spec.options.stopTimeoutSeconds * 1000);
  await confirmStopped(deps, member, PORTS_FREE_MS);
  return outcome;
}

/** stopMember, and a note on the run when the member ignored SIGINT and had to be killed. */
export async function stopMemberNoted(
  ctx: StepContext,
  state: UpgradeState,
  member: MemberSpec,
): Promise<void> {
  const { escalated } = await stopMember(ctx, member);
  if (escalated)
    await ctx.recorder.note(state, {
      step: 'stop-escalated',
      member: member.name,
      message: `${member.name} ignored SIGINT for ${ctx.deps.spec.options.stopTimeoutSeconds} s and was killed`,
    });
}
