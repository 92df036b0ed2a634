// Whether Kafka can be reached, known ahead of the calls that need it: a probe asks every bootstrap
// broker a few times a second, so a lost cluster is an UNAVAILABLE answer within a second, not a
// wait for the client library's retries, and its return is noticed as fast.
import { type AppError, unavailable } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { type ProbeOutcome, probeBroker } from './kafka-probe.ts';

export interface KafkaLink {
  /** False once no broker answered a probe, true again once one does. */
  readonly up: boolean;
  /** The UNAVAILABLE error a call doing `what` gets now, or undefined while Kafka answers. */
  unreachable(what: string): AppError | undefined;
  /**
   * Runs `work` unless Kafka is unreachable (then rejects at once, naming `what`); rejects as soon
   * as Kafka is found unreachable while it runs (the work itself goes on in the background).
   */
  guard<T>(what: string, work: () => Promise<T>): Promise<T>;
  /** Called with each change of `up`; returns the function that removes the listener. */
  onChange(listener: (up: boolean) => void): () => void;
  close(): void;
}

export interface KafkaLinkOptions {
  readonly brokers: readonly string[];
  readonly clientId: string;
  readonly logger: Logger;
  /** Between probes; default 250. */
  readonly intervalMs?: number;
  /** A broker that has not answered by then counts as not answering; default 400. */
  readonly timeoutMs?: number;
  /** Replaces the network probe (tests). */
  readonly probe?: (broker: string) => Promise<ProbeOutcome>;
}

const SILENT_PROBES_TO_LOSE = 2;

export function createKafkaLink(options: KafkaLinkOptions): KafkaLink {
  const intervalMs = options.intervalMs ?? 250;
  const timeoutMs = options.timeoutMs ?? 400;
  let correlationId = 0;
  const probe =
    options.probe ??
    ((broker: string) =>
      probeBroker(broker, { timeoutMs, clientId: options.clientId, correlationId: ++correlationId }));

  let up = true;
  let reason = '';
  let downSince = 0;
  const listeners = new Set<(up: boolean) => void>();
  // Settled with the error of the moment Kafka was found unreachable; renewed when it answers again.
  let lost = newLoss();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  function newLoss(): { promise: Promise<never>; fail: (error: AppError) => void } {
    let fail: (error: AppError) => void = () => {};
    const promise = new Promise<never>((_, reject) => {
      fail = reject;
    });
    promise.catch(() => undefined);
    return { promise, fail };
  }

  const errorFor = (what: string, inFlight = false): AppError =>
    unavailable(
      `kafka: no broker of ${options.brokers.join(',')} has answered since ${new Date(downSince).toISOString()} (${reason}); ${
        inFlight ? `${what} was under way and may or may not have taken effect` : `${what} was not done`
      }`,
    );

  function set(nowUp: boolean, why: string): void {
    if (nowUp === up) {
      if (!up) reason = why;
      return;
    }
    up = nowUp;
    if (up) {
      options.logger.info({ brokers: options.brokers }, 'kafka answers again');
      lost = newLoss();
    } else {
      reason = why;
      downSince = Date.now();
      options.logger.error({ brokers: options.brokers, reason }, 'kafka does not answer');
      lost.fail(errorFor('the call', true));
    }
    for (const listener of listeners) listener(up);
  }

  // A broker that refuses or drops the connection is lost at once; one that is only slow to answer
  // must be so twice in a row (a loaded machine can delay one answer past the timeout).
  let silentProbes = 0;
  async function probeAll(): Promise<void> {
    const outcomes = await Promise.all(options.brokers.map((broker) => probe(broker)));
    if (outcomes.some((o) => o.answered === true)) {
      silentProbes = 0;
      return set(true, '');
    }
    const failures = outcomes.filter((o): o is { answered: false; reason: string } => o.answered === false);
    // All inconclusive (a busy event loop): keep what is known.
    if (failures.length !== outcomes.length) return;
    const reason = failures.map((f) => f.reason).join('; ');
    const onlySilent = failures.every((f) => f.reason.startsWith('no answer within'));
    silentProbes = onlySilent ? silentProbes + 1 : 0;
    if (!onlySilent || silentProbes >= SILENT_PROBES_TO_LOSE) set(false, reason);
  }

  function schedule(): void {
    if (closed) return;
    timer = setTimeout(() => {
      void probeAll()
        .catch((error: unknown) => options.logger.warn({ err: error }, 'kafka probe failed'))
        .finally(schedule);
    }, intervalMs);
    timer.unref();
  }

  const start = (): void => {
    if (timer === undefined) schedule();
  };

  return {
    get up() {
      start();
      return up;
    },
    unreachable(what) {
      start();
      return up ? undefined : errorFor(what);
    },
    guard(what, work) {
      start();
      if (!up) return Promise.reject(errorFor(what));
      const running = work();
      running.catch(() => undefined);
      const failedWhile = lost.promise.catch(() => {
        throw errorFor(what, true);
      });
      failedWhile.catch(() => undefined);
      return Promise.race([running, failedWhile]);
    },
    onChange(listener) {
      start();
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      closed = true;
      clearTimeout(timer);
      listeners.clear();
    },
  };
}

/**
 * A link that never probes and always lets calls through: for a process part whose calls need no
 * fast answer (a consumer thread, whose failures its supervisor sees), so that it does not open a
 * connection to every broker four times a second beside the part that answers requests.
 */
export function unprobedKafkaLink(): KafkaLink {
  return {
    up: true,
    unreachable: () => undefined,
    guard: (_what, work) => work(),
    onChange: () => () => undefined,
    close: () => undefined,
  };
}
