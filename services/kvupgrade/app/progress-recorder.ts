import { AppError } from '../../../shared/errors.ts';
import { classifyLogLine } from '../domain/log-lines.ts';
import { type Trigger, transition } from '../domain/machine.ts';
import { noteEvent, transitionEvent, type UpgradeProgress } from '../domain/progress.ts';
import type { UpgradeState } from '../domain/run-state.ts';
import type { OrchestratorDeps } from './deps.ts';
import { ProgressNotRecordedError } from './progress-errors.ts';

export { ProgressNotRecordedError } from './progress-errors.ts';

/** Between attempts to record while Kafka does not answer (the bus probes it every 250 ms). */
const RECORD_RETRY_MS = 250;

export type Note = Parameters<typeof noteEvent>[1];

/** Writes a run's story to kv.upgrade-progress: its transitions, notes, and what the members logged. */
export interface ProgressRecorder {
  publish(events: UpgradeProgress[]): Promise<void>;
  /** Applies a transition and records it (with the member log lines seen since the last one). */
  commit(state: UpgradeState, trigger: Trigger): Promise<UpgradeState>;
  note(state: UpgradeState, note: Note): Promise<void>;
  /** Starts reading member logs from their current end (lines older than this session are not events). */
  startLogCapture(): Promise<void>;
}

const line = (e: UpgradeProgress) => `${e.step}${e.member ? ` [${e.member}]` : ''}: ${e.message}`;

/**
 * Every step that changes the cluster is taken only once the event announcing it is acknowledged:
 * resume rebuilds the run from these events, so a step they do not show could be done twice or
 * never undone. A lost Kafka is waited for up to options.recordWaitSeconds (a broker failing over
 * takes seconds), sending the same events again; after that the run stops before its next step.
 */
export function createProgressRecorder(
  deps: Pick<
    OrchestratorDeps,
    'spec' | 'driver' | 'clock' | 'events' | 'progress' | 'onEvent' | 'onNotice' | 'sleep'
  >,
): ProgressRecorder {
  const { spec, driver, clock, events: ctx } = deps;
  const seenHigherVersion = new Set<string>();
  let lastRecorded: string | undefined;

  async function publish(list: UpgradeProgress[]): Promise<void> {
    if (list.length === 0) return;
    const pending = line(list.findLast((e) => e.kind === 'transition') ?? list.at(-1)!);
    const waitMs = spec.options.recordWaitSeconds * 1000;
    const started = clock.now();
    let waiting = false;
    for (;;) {
      try {
        // A copy written by an attempt that seemed to fail keeps its event id: it is read once.
        await deps.progress.publish(list);
        break;
      } catch (error) {
        const waited = clock.now() - started;
        if (!(error instanceof AppError && error.retriable) || waited >= waitMs)
          throw new ProgressNotRecordedError(error, {
            pending,
            lastRecorded: lastRecorded ?? `nothing in this session (the run was in phase ${list[0]!.phase})`,
            waitedMs: waited,
          });
        if (!waiting)
          deps.onNotice(
            `kv.upgrade-progress does not record; waiting up to ${spec.options.recordWaitSeconds} s before the next step (${(error as Error).message})`,
          );
        waiting = true;
        await deps.sleep(Math.min(RECORD_RETRY_MS, waitMs - waited));
      }
    }
    if (waiting) deps.onNotice(`recorded after ${((clock.now() - started) / 1000).toFixed(1)} s; going on`);
    for (const e of list) deps.onEvent(e);
    const transition = list.findLast((e) => e.kind === 'transition');
    if (transition) lastRecorded = `${line(transition)} (phase ${transition.phase})`;
  }

  async function logEvents(state: UpgradeState): Promise<UpgradeProgress[]> {
    const out: UpgradeProgress[] = [];
    for (const member of spec.members) {
      for (const line of await driver.drainLogs(member).catch(() => [])) {
        const signal = classifyLogLine(line);
        if (!signal) continue;
        // A 3.4 leader repeats this every 4 s while mixed: once per member and version is the story.
        const once = `${member.name}/${signal.step}/${signal.version}`;
        if (signal.step === 'leader-found-higher-version' && seenHigherVersion.has(once)) continue;
        seenHigherVersion.add(once);
        const note = {
          step: signal.step,
          message: signal.message,
          member: member.name,
          ...(signal.version ? { observedVersion: signal.version } : {}),
          ...(signal.error ? { error: signal.error } : {}),
        };
        out.push(noteEvent(state, note, ctx, signal.at ?? clock.now(), 'member_log'));
      }
    }
    return out;
  }

  return {
    publish,
    async commit(state, trigger) {
      const at = clock.now();
      const next = transition(state, trigger, at);
      await publish([...(await logEvents(state)), transitionEvent(next, trigger, ctx, at)]);
      return next;
    },
    async note(state, note) {
      await publish([...(await logEvents(state)), noteEvent(state, note, ctx, clock.now())]);
    },
    async startLogCapture() {
      await Promise.all(spec.members.map((m) => driver.drainLogs(m).catch(() => [])));
    },
  };
}
