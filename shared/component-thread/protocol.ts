// What a component thread and the thread that started it say to each other (structured-clone
// messages), besides what each component adds of its own.
import type { ErrorCode } from '../errors.ts';

/** A counter's increase since the last report, by its labels. */
export interface CounterDelta {
  readonly name: string;
  readonly help: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly delta: number;
}

/** A gauge's value now, by its labels. */
export interface GaugeValue {
  readonly name: string;
  readonly help: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export type ComponentMessage =
  /** The component runs (it has started; joining a group may still be under way). */
  | { readonly kind: 'started' }
  /**
   * The component stopped on an error, or could not start: the thread ends after this. The error's
   * code and whether it is retriable cross too, so a Kafka coordinator still moving is retried
   * like on the parent's own thread.
   */
  | {
      readonly kind: 'failed';
      readonly message: string;
      readonly code: ErrorCode;
      readonly retriable: boolean;
      readonly stack?: string;
    }
  | { readonly kind: 'counters'; readonly deltas: readonly CounterDelta[] }
  | { readonly kind: 'gauges'; readonly values: readonly GaugeValue[] }
  | { readonly kind: 'stopped' };

export type ToComponentThread = { readonly kind: 'stop' };
