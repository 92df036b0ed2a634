// The importance of each experiment, kept until its inputs change: a request reads the counted
// trials (one statement on the read model), and the forests are grown again only when those trials,
// their values or assignments, the objectives or the search space differ from the last answer's.
import { createHash } from 'node:crypto';
import type { ExperimentView, ObjectiveView } from '../common/ports.ts';
import type { TrialRecord } from '../suggestion/katib-space.ts';
import { type ImportanceAnswer, importanceAnswer } from './importance-answer.ts';

export interface ImportanceCache {
  /** The answer for these inputs: the kept one when they are those of the last call for the experiment. */
  answer(
    experiment: ExperimentView,
    objectives: readonly ObjectiveView[],
    records: readonly TrialRecord[],
  ): ImportanceAnswer;
}

/** What the answer depends on, as a digest. */
function fingerprint(
  experiment: ExperimentView,
  objectives: readonly ObjectiveView[],
  records: readonly TrialRecord[],
): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify([objectives, experiment.parameters]));
  for (const r of records)
    hash.update(
      `\u0000${r.name}\u0001${r.point!.join('\u0002')}\u0001${r.objective}\u0001${r.metrics.map((m) => m.value).join('\u0002')}`,
    );
  return hash.digest('base64');
}

export function createImportanceCache(
  options: { maxExperiments?: number; compute?: typeof importanceAnswer } = {},
): ImportanceCache {
  const max = options.maxExperiments ?? 100;
  const compute = options.compute ?? importanceAnswer;
  // In least recently used order: Map keeps insertion order, and a hit is inserted again.
  const kept = new Map<string, { key: string; answer: ImportanceAnswer }>();
  return {
    answer(experiment, objectives, records) {
      const key = fingerprint(experiment, objectives, records);
      const found = kept.get(experiment.name);
      kept.delete(experiment.name);
      const answer = found?.key === key ? found.answer : compute(experiment, objectives, records);
      kept.set(experiment.name, { key, answer });
      if (kept.size > max) kept.delete(kept.keys().next().value!);
      return answer;
    },
  };
}
