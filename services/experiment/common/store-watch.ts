// Knows, ahead of the reads, whether the observation store answers: every call through the watched
// store tells it (an UNAVAILABLE failure marks it lost, any answer marks it back), and while it is
// lost a ping every `probeMs` notices its return. A read then fails at once with the store's own
// reason instead of waiting for a persistence consumer that cannot write either.
import { type AppError, toAppError, unavailable } from '../../../shared/errors.ts';
import type { ObservationStore } from './ports.ts';

export interface StoreWatch {
  /** The store to hand to everything that uses it. */
  readonly store: ObservationStore;
  /** The UNAVAILABLE error for `what` while the store is lost; undefined while it answers. */
  unreachable(what: string): AppError | undefined;
  /** Called when the store is found lost and when it answers again. */
  onChange(listener: () => void): () => void;
  /**
   * What calls made elsewhere (the persistence thread's own connection) found: the error they
   * failed with (UNAVAILABLE marks the store lost), or undefined when the store answered them.
   */
  observe(error?: unknown): void;
  close(): void;
}

export function watchStore(store: ObservationStore, options: { name: string; probeMs?: number }): StoreWatch {
  const probeMs = options.probeMs ?? 250;
  let lost: { reason: string; since: number } | undefined;
  let probe: NodeJS.Timeout | undefined;
  let closed = false;
  const listeners = new Set<() => void>();
  const changed = (): void => {
    for (const listener of listeners) listener();
  };

  const answered = (): void => {
    if (lost !== undefined) queueMicrotask(changed);
    lost = undefined;
    clearTimeout(probe);
    probe = undefined;
  };
  const failed = (error: unknown): void => {
    const failure = toAppError(error);
    if (failure.code !== 'UNAVAILABLE' || closed) return;
    if (lost === undefined) {
      lost = { reason: failure.message, since: Date.now() };
      queueMicrotask(changed);
    }
    if (probe === undefined) schedule();
  };
  function schedule(): void {
    probe = setTimeout(() => {
      probe = undefined;
      store.ping().then(answered, (error: unknown) => {
        if (lost) lost.reason = toAppError(error).message;
        if (!closed) schedule();
      });
    }, probeMs);
    probe.unref();
  }
  const watched = <T>(call: () => Promise<T>): Promise<T> =>
    call().then(
      (value) => {
        answered();
        return value;
      },
      (error: unknown) => {
        failed(error);
        throw error;
      },
    );

  return {
    store: {
      apply: (changes) => watched(() => store.apply(changes)),
      query: (query) => watched(() => store.query(query)),
      scan: (query, visit) => watched(() => store.scan(query, visit)),
      curves: (query) => watched(() => store.curves(query)),
      trialStatus: (trialName) => watched(() => store.trialStatus(trialName)),
      knowsTrial: (trialName) => watched(() => store.knowsTrial(trialName)),
      ping: () => watched(() => store.ping()),
      close: () => {
        closed = true;
        clearTimeout(probe);
        return store.close();
      },
    },
    unreachable: (what) =>
      lost === undefined
        ? undefined
        : unavailable(
            `${options.name} has not answered since ${new Date(lost.since).toISOString()} (${lost.reason}); ${what} was not done`,
          ),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    observe(error) {
      if (error === undefined) answered();
      else failed(error);
    },
    close() {
      closed = true;
      clearTimeout(probe);
      listeners.clear();
    },
  };
}
