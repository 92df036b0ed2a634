// What the stateful suggestion algorithms need from the outside world.

/**
 * Where a stateful suggestion algorithm (enas) keeps its controller, per experiment, shared by every
 * instance of the service. Failures are `AppError`s (`UNAVAILABLE` when the store cannot answer).
 */
export interface ControllerStateStore {
  /**
   * The latest state saved for the experiment, seeing every save acknowledged before the call;
   * `undefined` when there is none (or the latest one cannot be read: logged).
   */
  latest(experiment: string): Promise<Uint8Array | undefined>;
  /** Saves the experiment's next state; resolves once it is durable. */
  save(experiment: string, state: SavedControllerState): Promise<void>;
}

export interface SavedControllerState {
  readonly algorithmName: string;
  /** Trials in the request that produced this state. */
  readonly trialCount: number;
  readonly state: Uint8Array;
}
