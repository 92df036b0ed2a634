// What a runner decides about the runs it is handed and holds, as plain data: take an assignment,
// leave it, or wait for a free slot; stop a held run when its attempt was cancelled or its trial
// ended elsewhere (early-stopped, killed); and the TrialRunChanged and RunnerHeartbeat events that
// say so. Pure: the time and the runner's identity come in.
import type { EventPayloads } from '../../../schemas/gen/events.ts';

type Out<T extends keyof EventPayloads> = EventPayloads<number>[T];
type In<T extends keyof EventPayloads> = EventPayloads<Date | number>[T];
const ms = (t: Date | number): number => (typeof t === 'number' ? t : t.getTime());

export interface RunnerIdentity {
  readonly runnerId: string;
  readonly host: string;
  readonly pid: number;
  /** Trials it runs at once at most; 0 for no limit. */
  readonly slots: number;
}

/** One run (attempt of a trial) this runner holds. */
export interface HeldRun {
  readonly trial: string;
  readonly experiment: string;
  readonly attempt: number;
}

export type Pickup =
  | { readonly kind: 'take'; readonly supersedes: HeldRun | undefined }
  | { readonly kind: 'leave'; readonly why: string }
  | { readonly kind: 'wait' };

export interface PickupState {
  readonly held: ReadonlyMap<string, HeldRun>;
  /** Per trial, the highest attempt this runner has seen assigned (taken or left). */
  readonly seen: ReadonlyMap<string, number>;
  readonly slots: number;
  readonly now: number;
}

/**
 * Whether to start an assignment. An attempt at or below one already seen is a redelivery (the
 * group handed the partition over again) and is left; one read after its `not_after` was assigned
 * again by the controller by now and is left; a newer attempt of a trial held here replaces the
 * older run (which is stopped first). With every slot busy the runner waits: the partition is not
 * read further, so another runner of the group can take what follows once it is rebalanced.
 */
export function pickUp(
  assignment: Pick<In<'TrialAssigned'>, 'trial_name' | 'attempt' | 'not_after'>,
  state: PickupState,
): Pickup {
  const { trial_name: trial, attempt } = assignment;
  const seen = state.seen.get(trial) ?? 0;
  if (attempt <= seen) return { kind: 'leave', why: `attempt ${attempt} was seen already (latest ${seen})` };
  if (state.now > ms(assignment.not_after))
    return { kind: 'leave', why: `read after its not_after: the controller has assigned it again` };
  const supersedes = state.held.get(trial);
  if (supersedes === undefined && state.slots > 0 && state.held.size >= state.slots) return { kind: 'wait' };
  return { kind: 'take', supersedes };
}

/** The trial conditions after which a run still going is stopped (the trial ended elsewhere). */
const STOPPING_CONDITIONS: ReadonlySet<string> = new Set(['EARLYSTOPPED', 'KILLED', 'FAILED']);

export interface StopOrder {
  readonly run: HeldRun;
  /** The condition the trial moved to, or CANCELLED for a cancelled attempt. */
  readonly because: string;
  readonly message: string;
}

/** Whether an event read on experiment.trial-runs or experiment.trial-status stops a held run. */
export function stopOrder(
  event:
    | { readonly eventType: 'TrialRunChanged'; readonly payload: In<'TrialRunChanged'> }
    | { readonly eventType: 'TrialStatusChanged'; readonly payload: In<'TrialStatusChanged'> },
  held: ReadonlyMap<string, HeldRun>,
): StopOrder | undefined {
  const run = held.get(event.payload.trial_name);
  if (run === undefined) return undefined;
  if (event.eventType === 'TrialRunChanged') {
    const p = event.payload;
    // Only the controller cancels; a cancellation names the attempt it ends (older ones are gone).
    if (p.phase !== 'CANCELLED' || p.attempt < run.attempt) return undefined;
    return { run, because: 'CANCELLED', message: p.message || 'the controller cancelled the run' };
  }
  const p = event.payload;
  if (!STOPPING_CONDITIONS.has(p.condition)) return undefined;
  return {
    run,
    because: p.condition,
    message: `trial is ${p.condition}${p.message ? `: ${p.message}` : ''}`,
  };
}

/** How a held run's process ended, as the runner saw it. */
export type RunEnd =
  /** It exited by itself (or a signal no one here sent ended it). */
  | {
      readonly kind: 'exited';
      readonly exitCode: number | null;
      readonly signal: string;
      readonly stderrTail: string;
    }
  /** It could not start (spawn failed): reported as exit code 127, a shell's "cannot run". */
  | { readonly kind: 'not-started'; readonly message: string }
  /** The runner stopped it because it was told to (a StopOrder). */
  | { readonly kind: 'stopped'; readonly order: StopOrder; readonly stderrTail: string }
  /** The runner itself is stopping and gives the run back. */
  | { readonly kind: 'released'; readonly stderrTail: string };

export const NOT_STARTED_EXIT_CODE = 127;

function runChanged(
  run: HeldRun,
  identity: RunnerIdentity,
  phase: Out<'TrialRunChanged'>['phase'],
  fields: Partial<Pick<Out<'TrialRunChanged'>, 'exit_code' | 'signal' | 'stderr_tail' | 'message'>>,
  objectiveReported: boolean,
  now: number,
): Out<'TrialRunChanged'> {
  return {
    event_id: `${run.trial}:${run.attempt}:${phase}`,
    occurred_at: now,
    experiment_name: run.experiment,
    trial_name: run.trial,
    attempt: run.attempt,
    runner_id: identity.runnerId,
    host: identity.host,
    phase,
    exit_code: fields.exit_code ?? null,
    signal: fields.signal ?? '',
    objective_reported: objectiveReported,
    stderr_tail: fields.stderr_tail ?? '',
    message: fields.message ?? '',
  };
}

/** `pid` is the trial's process (its process group's leader). */
export const runStarted = (
  run: HeldRun,
  identity: RunnerIdentity,
  pid: number,
  now: number,
): Out<'TrialRunChanged'> => runChanged(run, identity, 'STARTED', { message: `process ${pid}` }, false, now);

/** The event that ends a run: EXITED, KILLED (stopped when told) or RELEASED (the runner stops). */
export function runEnded(
  run: HeldRun,
  identity: RunnerIdentity,
  end: RunEnd,
  objectiveReported: boolean,
  now: number,
): Out<'TrialRunChanged'> {
  switch (end.kind) {
    case 'exited':
      return runChanged(
        run,
        identity,
        'EXITED',
        { exit_code: end.exitCode, signal: end.signal, stderr_tail: end.stderrTail },
        objectiveReported,
        now,
      );
    case 'not-started':
      return runChanged(
        run,
        identity,
        'EXITED',
        { exit_code: NOT_STARTED_EXIT_CODE, message: end.message },
        false,
        now,
      );
    case 'stopped':
      return runChanged(
        run,
        identity,
        'KILLED',
        { stderr_tail: end.stderrTail, message: `stopped: ${end.order.message}` },
        objectiveReported,
        now,
      );
    case 'released':
      return runChanged(
        run,
        identity,
        'RELEASED',
        { stderr_tail: end.stderrTail, message: 'the runner stopped' },
        objectiveReported,
        now,
      );
  }
}

export function heartbeat(
  identity: RunnerIdentity,
  held: Iterable<HeldRun>,
  stopping: boolean,
  eventId: string,
  now: number,
): Out<'RunnerHeartbeat'> {
  return {
    event_id: eventId,
    occurred_at: now,
    runner_id: identity.runnerId,
    host: identity.host,
    pid: identity.pid,
    slots: identity.slots,
    running: [...held].map((run) => ({ trial_name: run.trial, attempt: run.attempt })),
    stopping,
  };
}
