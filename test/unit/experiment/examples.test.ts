// The example experiments read as Katib reads them, and their trial runs here as a runner runs it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startHeldRun } from '../../../services/experiment/runner/adapters/held-run.ts';
import type { MetricLog } from '../../../services/experiment/runner/metrics-lines.ts';
import { ALGORITHMS } from '../../../services/experiment/suggestion/registry.ts';
import { prepareExperiment } from '../../../services/experiment/suggestion/suggest.ts';
import { readExperiment } from '../../../services/experiment/trials/definition/read-experiment.ts';
import { trialRunSpec } from '../../../services/experiment/trials/definition/trial-run-spec.ts';
import { experimentMessage } from '../../../services/experiment/trials/katib-requests.ts';
import { systemClock } from '../../../shared/clock.ts';
import { silentLogger } from '../../../shared/logger.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const EXAMPLES = ['random', 'tpe', 'cmaes', 'hyperband', 'medianstop'] as const;
const ASSIGNMENTS = [
  { name: 'lr', value: '0.03' },
  { name: 'momentum', value: '0.9' },
  { name: 'optimizer', value: 'adam' },
];

const read = (name: string) => readExperiment(readFileSync(join(ROOT, 'examples', `${name}.yaml`), 'utf8'));

describe('the example experiments', () => {
  it.each(EXAMPLES)('%s reads without a problem', (name) => {
    const result = read(name);
    expect(result.ok ? [] : result.problems).toEqual([]);
  });

  it.each(EXAMPLES)(
    '%s: its algorithm takes its settings and search space (as GetSuggestions checks them)',
    (name) => {
      const result = read(name);
      if (!result.ok) throw new Error(`${name} does not read`);
      const { definition } = result;
      const message = experimentMessage({ name } as never, definition, definition.algorithm.settings);
      // The message as the controller sends it is the request's output shape once decoded.
      expect(() => prepareExperiment(message as never, ALGORITHMS)).not.toThrow();
    },
  );

  it('medianstop stops early with medianstop', () => {
    const result = read('medianstop');
    expect(result.ok && result.definition.earlyStopping?.name).toBe('medianstop');
  });

  it('a trial runs train.mjs and reports its accuracy every epoch, exit 0', async () => {
    const result = read('random');
    if (!result.ok) throw new Error('random.yaml does not read');
    const spec = trialRunSpec(result.definition, { name: 'random-example-t1', assignments: ASSIGNMENTS });
    // The runner's PATH finds the project's node; here the one running the test stands in for it.
    const command = [process.execPath, ...spec.command.slice(1)];
    const logs: MetricLog[] = [];
    const run = await startHeldRun(
      {
        event_id: 'x',
        occurred_at: 0,
        experiment_name: 'random-example',
        trial_name: 'random-example-t1',
        attempt: 1,
        not_after: 0,
        command: [...command, '--epochs=3', '--seconds-per-epoch=0'],
        env: [...spec.env],
        working_dir: spec.workingDir,
        collector: { ...spec.collector, filters: [...spec.collector.filters] },
        metric_names: [...spec.metricNames],
        objective_type: spec.objectiveType,
        fresh_observations: false,
      },
      {
        reporter: {
          report: async (_, l) => void logs.push(...l),
          remove: async () => undefined,
          close: () => undefined,
        },
        clock: systemClock,
        logger: silentLogger,
        baseEnv: {},
        runnerDir: ROOT,
        stopGraceMs: 1_000,
        filePollMs: 50,
        reportAttempts: 1,
      },
    );
    if (!('pid' in run)) throw new Error(JSON.stringify(run.end));
    const { end, objectiveReported } = await run.ended;
    expect(end).toMatchObject({ kind: 'exited', exitCode: 0 });
    expect(objectiveReported).toBe(true);
    const accuracy = logs.filter((l) => l.name === 'accuracy').map((l) => Number(l.value));
    expect(accuracy).toHaveLength(3);
    expect(accuracy[2]!).toBeGreaterThan(accuracy[0]!);
    expect(logs.filter((l) => l.name === 'loss')).toHaveLength(3);
  });
});
