// Our pruners on simulated curves, through the code the service runs: GetEarlyStoppingRules'
// computation after every trial (as Katib calls it after each GetSuggestions) and the judge's
// tracker fed one report per step, trials one after another (Optuna's study.optimize, n_jobs 1).
import { isPruner, readAlgorithmSpec } from '../../services/experiment/earlystopping/algorithms.ts';
import { curvesNeeded, issueRules } from '../../services/experiment/earlystopping/issue-rules.ts';
import { createTracker } from '../../services/experiment/earlystopping/tracker.ts';

export interface Run {
  /** Steps each trial ran (the step it was stopped at included). */
  readonly steps: readonly number[];
  /** Whether each trial ran to its end (Optuna: COMPLETE; Katib: SUCCEEDED). */
  readonly completed: readonly boolean[];
}

/**
 * @param trialName the trial's name; hyperband draws its bracket from it (Optuna from
 *   `<study>_<number>`, which the benchmark uses as the name so both draw the same brackets)
 */
export function runOurs(
  algorithm: string,
  settings: readonly (readonly [string, string])[],
  curves: readonly (readonly number[])[],
  experiment: string,
  trialName: (index: number) => string,
): Run {
  const spec = readAlgorithmSpec({
    algorithmName: algorithm,
    settings: settings.map(([name, value]) => ({ name, value })),
  });
  const tracker = createTracker({ maxSamplesPerMetric: 10_000 });
  const trials: { name: string; condition: string }[] = [];
  const reported = new Map<string, string[]>();
  let now = 1;
  let event = 0;
  const issue = (): void => {
    const needed = curvesNeeded(spec, trials);
    const issued = issueRules({
      spec,
      objectiveMetric: 'loss',
      objectiveType: 'MINIMIZE',
      succeededTrials: needed.succeededTrials,
      succeeded: needed.succeeded.map((name) => reported.get(name)!),
      listed: new Map(needed.listed.map((name) => [name, reported.get(name)!])),
    });
    tracker.onRules({
      experimentName: experiment,
      issuedAtMs: now++,
      objectiveMetric: 'loss',
      objectiveType: 'MINIMIZE',
      rules: issued.rules,
      trials: [...trials],
      ...(isPruner(spec) ? { pruner: spec, reference: issued.reference } : {}),
    });
  };
  issue();
  const steps: number[] = [];
  const completed: boolean[] = [];
  curves.forEach((curve, index) => {
    const name = trialName(index);
    const values: string[] = [];
    reported.set(name, values);
    let stopped = false;
    for (const value of curve) {
      values.push(String(value));
      const judgement = tracker.onReport({
        eventId: `e${event++}`,
        trialName: name,
        atMs: now++,
        logs: [{ metricName: 'loss', value: String(value) }],
      });
      if (judgement.stops.length > 0) {
        stopped = true;
        break;
      }
    }
    const condition = stopped ? 'EARLYSTOPPED' : 'SUCCEEDED';
    tracker.onStatus(name, condition);
    trials.push({ name, condition });
    steps.push(values.length);
    completed.push(!stopped);
    issue();
  });
  return { steps, completed };
}
