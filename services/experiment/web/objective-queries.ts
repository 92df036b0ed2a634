// The objective views' query: an experiment's objectives (refused while none has a direction) and
// ?reference, the point the front's hypervolume is measured from.
import { AppError, invalidArgument } from '../../../shared/errors.ts';
import { parseFinite } from '../common/katib-numbers.ts';
import type { ExperimentView, ObjectiveView } from '../common/read-model.ts';

/** The experiment's objectives; FAILED_PRECONDITION while none has a known direction. */
export function objectivesOf(experiment: ExperimentView): readonly ObjectiveView[] {
  if (experiment.objectives.length === 0)
    throw new AppError(
      'FAILED_PRECONDITION',
      `experiment ${JSON.stringify(experiment.name)}: no objective with a direction (MAXIMIZE or MINIMIZE) known yet`,
    );
  return experiment.objectives;
}

/** ?reference: one number per objective, comma-separated, in the metrics' units. */
export function referenceOf(
  text: string | undefined,
  objectives: readonly ObjectiveView[],
): number[] | undefined {
  if (text === undefined) return undefined;
  const values = text.split(',').map((part) => parseFinite(part.trim()));
  const names = objectives.map((o) => o.metricName).join(', ');
  if (values.length !== objectives.length || values.some((v) => v === undefined))
    throw invalidArgument(
      `query parameter reference: ${JSON.stringify(text)} is not ${objectives.length} comma-separated number${objectives.length === 1 ? '' : 's'} (${names})`,
    );
  return values as number[];
}
