// What stops a command when kv.upgrade-progress cannot be written or read (Kafka lost): resume and
// status rebuild a run from those events, so neither may go on without them.
import { AppError } from '../../../shared/errors.ts';

const why = (cause: unknown) => (cause as Error).message ?? String(cause);

/** An event was not acknowledged within options.recordWaitSeconds: the run stops before its next step. */
export class ProgressNotRecordedError extends AppError {
  constructor(
    cause: unknown,
    detail: {
      /** The event that was not recorded, as a person reads it. */
      readonly pending: string;
      /** The last transition this session recorded (or the phase the run was in), as a person reads it. */
      readonly lastRecorded: string;
      readonly waitedMs: number;
    },
  ) {
    super(
      'UNAVAILABLE',
      [
        `the run stopped: kv.upgrade-progress did not record its next event within ${(detail.waitedMs / 1000).toFixed(0)} s, and no step is taken unless the event announcing it is recorded first`,
        `  not recorded: ${detail.pending}`,
        `  last recorded: ${detail.lastRecorded}`,
        `  why: ${why(cause)}`,
      ].join('\n'),
      { cause },
    );
    this.name = 'ProgressNotRecordedError';
  }
}

/** The cluster's events could not be read: nothing was done. */
export class ProgressNotReadError extends AppError {
  constructor(cause: unknown) {
    super('UNAVAILABLE', `kv.upgrade-progress could not be read, so nothing was done: ${why(cause)}`, {
      cause,
    });
    this.name = 'ProgressNotReadError';
  }
}
