import { AppError } from '../../../shared/errors.ts';
import { classifyLogLine } from '../domain/log-lines.ts';
import { type Trigger, transition } from '../domain/machine.ts';
import { noteEvent, transitionEvent, type UpgradeProgress } from '../domain/progress.ts';
import type { UpgradeState } from '../domain/run-state.ts';
import type { OrchestratorDeps } from './deps.ts';

/** Publishing failed: the run stops here (nothing more may happen unrecorded); resume continues. */
export class ProgressNotRecordedError extends AppError {
  constructor(cause: unknown) {
    super('UNAVAILABLE', `progress could not be recorded on the topic: ${(cause as Error).message}`, {
      cause,
    });
    this.name = 'ProgressNotRecordedError';
  }
}

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

export function createProgressRecorder(
  deps: Pick<OrchestratorDeps, 'spec' | 'driver' | 'clock' | 'events' | 'progress' | 'onEvent'>,
): ProgressRecorder {
  const { spec, driver, clock, events: ctx } = deps;
  const seenHigherVersion = new Set<string>();

  async function publish(list: UpgradeProgress[]): Promise<void> {
    try {
      await deps.progress.publish(list);
    } catch (error) {
      throw new ProgressNotRecordedError(error);
    }
    for (const e of list) deps.onEvent(e);
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
