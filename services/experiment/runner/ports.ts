// What a runner needs from the rest of the product.
import type { MetricLog } from './metrics-lines.ts';

/** Katib's DBManager, as a trial's metrics collector uses it. */
export interface ObservationReporter {
  /**
   * Stores the values (ReportObservationLog); resolves once the DBManager acknowledged them (it
   * answers only after Kafka did). Rejects with UNAVAILABLE when it cannot be reached, with
   * INVALID_ARGUMENT for values it refuses (nothing of the call is stored then).
   */
  report(trialName: string, logs: readonly MetricLog[]): Promise<void>;
  /** Deletes the trial's log (DeleteObservationLog): a run again starts from nothing. */
  remove(trialName: string): Promise<void>;
  close(): void;
}
