// One run a runner holds, from its assignment to how it ended: the old observation log deleted when
// the run starts afresh, the process started, its output (stdout or the metrics file) read with
// Katib's collector rules and every value reported as it appears, in order, and at the end Katib's
// `unavailable` value when the objective never appeared. `ended` resolves only after every report
// was acknowledged, so the controller that reads EXITED reads the values with it.

import { isAbsolute, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EventPayloads } from '../../../../schemas/gen/events.ts';
import type { Clock } from '../../../../shared/clock.ts';
import { toAppError } from '../../../../shared/errors.ts';
import type { Logger } from '../../../../shared/logger.ts';
import { createLineParser, LineSplitter, type MetricLog, ObjectiveWatch } from '../metrics-lines.ts';
import type { ObservationReporter } from '../ports.ts';
import type { HeldRun, RunEnd, StopOrder } from '../runner-decisions.ts';
import { tailMetricsFile } from './metrics-file.ts';
import { startTrialProcess, type TrialProcess, trialDirectory } from './trial-process.ts';

type Assignment = EventPayloads<Date | number>['TrialAssigned'];

export interface HeldRunDeps {
  readonly reporter: ObservationReporter;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  readonly runnerDir: string;
  readonly stopGraceMs: number;
  readonly filePollMs: number;
  /** Attempts of one report while the DBManager is unavailable, 500 ms apart. */
  readonly reportAttempts: number;
}

export interface StartedRun {
  readonly run: HeldRun;
  readonly pid: number;
  /** How the run ended, with whether its objective was reported. */
  readonly ended: Promise<{ readonly end: RunEnd; readonly objectiveReported: boolean }>;
  /** Stops the process (a stop order, or 'released' when the runner itself stops). */
  stop(why: StopOrder | 'released'): void;
}

/** Starts the run; resolves with its end as `not-started` when the process could not start. */
export async function startHeldRun(
  assignment: Assignment,
  deps: HeldRunDeps,
): Promise<StartedRun | { readonly run: HeldRun; readonly end: RunEnd }> {
  const run: HeldRun = {
    trial: assignment.trial_name,
    experiment: assignment.experiment_name,
    attempt: assignment.attempt,
  };
  const log = deps.logger.child({ trial: run.trial, attempt: run.attempt });
  const reports = createReportQueue(run.trial, deps, log);
  if (assignment.fresh_observations) await reports.remove();

  const collector = assignment.collector;
  const parse = createLineParser({
    format: collector.format,
    filters: collector.filters,
    metricNames: assignment.metric_names,
  });
  const watch = new ObjectiveWatch(assignment.metric_names[0] ?? '');
  const splitter = new LineSplitter();
  const readAt = () => new Date(deps.clock.now()).toISOString();
  const take = (lines: readonly string[]) => {
    const logs = lines.flatMap((line) => {
      const parsed = parse(line, readAt());
      if (parsed.problem !== undefined) log.info({ problem: parsed.problem }, 'metrics line not read');
      return parsed.logs;
    });
    watch.observe(logs);
    reports.add(logs);
  };
  const onText = (chunk: string) => take(splitter.push(chunk));
  const fromStdout = collector.kind === 'StdOut';

  let child: TrialProcess;
  try {
    child = await startTrialProcess({
      spec: { command: assignment.command, env: assignment.env, workingDir: assignment.working_dir },
      baseEnv: deps.baseEnv,
      runnerDir: deps.runnerDir,
      onStdout: fromStdout ? onText : () => undefined,
    });
  } catch (error) {
    const message = `cannot start ${JSON.stringify(assignment.command[0] ?? '')}: ${(error as Error).message}`;
    return { run, end: { kind: 'not-started', message } };
  }
  const trialDir = trialDirectory(assignment.working_dir, deps.runnerDir);
  const file = fromStdout
    ? undefined
    : tailMetricsFile({
        path: isAbsolute(collector.path) ? collector.path : resolve(trialDir, collector.path),
        pollMs: deps.filePollMs,
        onText,
      });

  let stoppedBy: StopOrder | 'released' | undefined;
  const ended = (async () => {
    const exit = await child.exited;
    await file?.finish();
    const last = splitter.end();
    if (last !== undefined) take([last]);
    // A run stopped on purpose is over for its trial: Katib's `unavailable` is only for one that ended by itself.
    if (stoppedBy === undefined) reports.add(watch.finalLogs());
    await reports.drained();
    const end: RunEnd =
      stoppedBy === undefined
        ? { kind: 'exited', exitCode: exit.exitCode, signal: exit.signal, stderrTail: exit.stderrTail }
        : stoppedBy === 'released'
          ? { kind: 'released', stderrTail: exit.stderrTail }
          : { kind: 'stopped', order: stoppedBy, stderrTail: exit.stderrTail };
    return { end, objectiveReported: watch.reported };
  })();
  return {
    run,
    pid: child.pid,
    ended,
    stop: (why) => {
      stoppedBy ??= why;
      void child.stop(deps.stopGraceMs);
    },
  };
}

/** Reports in the order values were read, one call at a time, retried while the DBManager is away. */
function createReportQueue(trial: string, deps: HeldRunDeps, log: Logger) {
  let chain: Promise<void> = Promise.resolve();
  const attempt = async (call: () => Promise<void>, what: string) => {
    for (let n = 1; ; n += 1) {
      try {
        return await call();
      } catch (error) {
        const failure = toAppError(error);
        if (!failure.retriable || n >= deps.reportAttempts) {
          log.error({ err: failure }, `${what} lost`);
          return;
        }
        await sleep(500);
      }
    }
  };
  return {
    add(logs: readonly MetricLog[]): void {
      if (logs.length === 0) return;
      chain = chain.then(() => attempt(() => deps.reporter.report(trial, logs), 'ReportObservationLog'));
    },
    remove: () => attempt(() => deps.reporter.remove(trial), 'DeleteObservationLog'),
    drained: () => chain,
  };
}
