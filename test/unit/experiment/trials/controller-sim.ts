// A trial controller without Kafka for the domain's tests: decisions are folded back as the adapter
// folds its own acknowledged events, calls are answered by the test, runner events are made here.
import type { Decision } from '../../../../services/experiment/trials/domain/decisions.ts';
import type { ObservedMetric } from '../../../../services/experiment/trials/domain/observation.ts';
import { Asks, reconcile } from '../../../../services/experiment/trials/domain/reconcile.ts';
import {
  type SuggestedTrial,
  suggestionsAnswered,
  suggestionsFailed,
} from '../../../../services/experiment/trials/domain/suggestion-answers.ts';
import { fold, World, type WorldEvent } from '../../../../services/experiment/trials/domain/world.ts';

export const LEASE_MS = 15_000;
export const POLICY = { pickupTimeoutMs: 60_000, maxRuns: 3 };

export function experimentYaml(
  options: {
    name?: string;
    extra?: string;
    parallel?: number;
    max?: number;
    maxFailed?: number;
    goal?: number;
  } = {},
): string {
  return `apiVersion: kubeflow.org/v1beta1
kind: Experiment
metadata: { name: ${options.name ?? 'exp'} }
spec:
  objective: { type: minimize, objectiveMetricName: loss${options.goal === undefined ? '' : `, goal: ${options.goal}`} }
  algorithm: { algorithmName: random }
  parallelTrialCount: ${options.parallel ?? 2}
  maxTrialCount: ${options.max ?? 4}
${options.maxFailed === undefined ? '' : `  maxFailedTrialCount: ${options.maxFailed}\n`}${options.extra ?? ''}  parameters:
    - { name: lr, parameterType: double, feasibleSpace: { min: "0.01", max: "0.05" } }
  trialTemplate:
    primaryContainerName: main
    trialParameters: [{ name: lr, reference: lr }]
    trialSpec:
      apiVersion: batch/v1
      kind: Job
      spec: { template: { spec: { containers: [{ name: main, command: [python3, train.py, "--lr=\${trialParameters.lr}"] }] } } }
`;
}

export class Sim {
  readonly world = new World({ leaseMs: LEASE_MS });
  readonly asks = new Asks();
  now = 1_000_000;
  /** Every event the controller published, in order. */
  readonly published: WorldEvent[] = [];
  private seq = 0;

  submit(yaml: string, name = 'exp', generation = 1): void {
    this.read({
      eventType: 'ExperimentSubmitted',
      payload: {
        event_id: `s${generation}`,
        occurred_at: this.now,
        experiment_name: name,
        generation,
        yaml,
        source: 'test',
      },
    });
  }

  read(event: WorldEvent): void {
    fold(this.world, event, this.now);
  }

  /** One round: the decisions are published (folded), the calls returned for the test to answer. */
  round(name = 'exp'): Decision[] {
    const decisions = reconcile(this.world, this.asks, name, { now: this.now, ...POLICY });
    this.applyAll(decisions);
    return decisions.filter((d) => d.kind !== 'emit');
  }

  applyAll(decisions: readonly Decision[]): void {
    for (const d of decisions)
      if (d.kind === 'emit') {
        const event = { eventType: d.event.eventType, payload: d.event.payload } as WorldEvent;
        this.published.push(event);
        fold(this.world, event, this.now);
      }
  }

  /** Rounds until nothing more is decided; the calls asked for on the way. */
  settle(name = 'exp'): Decision[] {
    const calls: Decision[] = [];
    for (let i = 0; i < 50; i++) {
      const before = this.published.length;
      calls.push(...this.round(name));
      if (this.published.length === before) return calls;
    }
    throw new Error('the controller never settled');
  }

  answer(count: number, name = 'exp', trials?: SuggestedTrial[]): void {
    const suggested =
      trials ??
      Array.from({ length: count }, (_, i) => ({
        trialName: '',
        assignments: [{ name: 'lr', value: `0.0${i + 1}` }],
        labels: {},
      }));
    this.applyAll(
      suggestionsAnswered(this.world, this.asks, name, {
        trials: suggested,
        algorithmSettings: [],
        names: suggested.map(() => `${name}-t${++this.seq}`),
        eventId: `created-${this.seq}`,
        now: this.now,
      }),
    );
  }

  fail(code: string, message: string, name = 'exp'): void {
    this.applyAll(suggestionsFailed(this.world, this.asks, name, { code, message, now: this.now }));
  }

  runEvent(
    trial: string,
    phase: 'STARTED' | 'EXITED' | 'KILLED' | 'RELEASED',
    extra: { attempt?: number; runner?: string; exitCode?: number | null; stderr?: string } = {},
  ): void {
    const attempt = extra.attempt ?? this.world.trial(trial).attempt;
    this.read({
      eventType: 'TrialRunChanged',
      payload: {
        event_id: `${trial}:${attempt}:${phase}`,
        occurred_at: this.now,
        experiment_name: 'exp',
        trial_name: trial,
        attempt,
        runner_id: extra.runner ?? 'r1',
        host: 'host-a',
        phase,
        exit_code: phase === 'EXITED' ? (extra.exitCode === undefined ? 0 : extra.exitCode) : null,
        signal: '',
        objective_reported: true,
        stderr_tail: extra.stderr ?? '',
        message: '',
      },
    });
  }

  observe(trial: string, loss: string): void {
    const metrics: ObservedMetric[] =
      loss === '' ? [] : [{ name: 'loss', min: loss, max: loss, latest: loss }];
    this.world.observations.set(trial, metrics);
    this.asks.observing.delete(trial);
  }

  judgeStops(trial: string): void {
    this.read({
      eventType: 'TrialStatusChanged',
      payload: {
        event_id: `judge:${trial}`,
        occurred_at: this.now,
        trial_name: trial,
        experiment_name: 'exp',
        condition: 'EARLYSTOPPED',
        reason: 'TrialEarlyStopped',
        message: 'early stopped',
        source: 'early-stopping-worker',
      },
    });
  }

  trialNames(name = 'exp'): string[] {
    return [...this.world.experiments.get(name)!.trialNames];
  }

  condition(trial: string): string {
    return this.world.trial(trial).condition;
  }

  experiment(name = 'exp') {
    return this.world.experiments.get(name)!;
  }

  /** Starts and finishes a trial with this loss (exit 0), through every round it takes. */
  complete(trial: string, loss: string): void {
    this.runEvent(trial, 'STARTED');
    this.settle();
    this.runEvent(trial, 'EXITED');
    this.settle();
    this.observe(trial, loss);
  }
}
