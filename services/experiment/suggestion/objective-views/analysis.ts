// The experiment page's objective views (ObjectiveAnalysis of ../../common/ports.ts): the front,
// and importance kept per experiment until its inputs change. Each request reads the counted
// trials again (the caller's one statement), and the forests are grown again only when those
// trials, their values or parameters, the objectives or the search space differ from the last
// answer's.
import { createHash } from 'node:crypto';
import type { ObjectiveAnalysis, ObjectiveView, SearchParameterView } from '../../common/read-model.ts';
import type { TrialRecord } from '../katib-space.ts';
import { paretoView } from './front.ts';
import { importanceRecords, importanceView } from './importance.ts';

/** What an importance answer depends on, as a digest. */
function fingerprint(
  parameters: readonly SearchParameterView[],
  objectives: readonly ObjectiveView[],
  records: readonly TrialRecord[],
): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify([objectives, parameters]));
  for (const r of records)
    hash.update(
      `\u0000${r.name}\u0001${r.point!.join('\u0002')}\u0001${r.objective}\u0001${r.metrics.map((m) => m.value).join('\u0002')}`,
    );
  return hash.digest('base64');
}

export function createObjectiveAnalysis(
  options: { maxExperiments?: number; compute?: typeof importanceView } = {},
): ObjectiveAnalysis {
  const max = options.maxExperiments ?? 100;
  const compute = options.compute ?? importanceView;
  // In least recently used order: a Map keeps insertion order, and a hit is inserted again.
  const kept = new Map<string, { key: string; answer: ReturnType<typeof importanceView> }>();
  return {
    front: paretoView,
    importance(experiment, parameters, objectives, trials) {
      const records = importanceRecords(parameters, objectives, trials);
      const key = fingerprint(parameters, objectives, records);
      const found = kept.get(experiment);
      kept.delete(experiment);
      const answer = found?.key === key ? found.answer : compute(parameters, objectives, records);
      kept.set(experiment, { key, answer });
      if (kept.size > max) kept.delete(kept.keys().next().value!);
      return answer;
    },
  };
}
