// Whether an Experiment file is taken, and the ExperimentSubmitted event that records it: refused
// with every problem of the file by its path; the same YAML as the last submission changes nothing
// (a `run` sent twice is one experiment); anything else is the next generation of its name.
import type { EventPayloads } from '../../../../schemas/gen/events.ts';
import type { Problem } from './definition.ts';
import { readExperiment } from './read-experiment.ts';

type Submitted = EventPayloads<number>['ExperimentSubmitted'];

export type SubmissionDecision =
  | { readonly kind: 'refused'; readonly problems: readonly Problem[] }
  | { readonly kind: 'unchanged'; readonly name: string; readonly generation: number }
  | { readonly kind: 'submit'; readonly event: Submitted };

export function decideSubmission(
  yaml: string,
  last: { readonly generation: number; readonly yaml: string } | undefined,
  context: { readonly source: string; readonly eventId: string; readonly now: number },
): SubmissionDecision {
  const read = readExperiment(yaml);
  if (!read.ok) return { kind: 'refused', problems: read.problems };
  const name = read.definition.name;
  if (last !== undefined && last.yaml === yaml)
    return { kind: 'unchanged', name, generation: last.generation };
  return {
    kind: 'submit',
    event: {
      event_id: context.eventId,
      occurred_at: context.now,
      experiment_name: name,
      generation: (last?.generation ?? 0) + 1,
      yaml,
      source: context.source,
    },
  };
}
