import { describe, expect, it } from 'vitest';
import { decideSubmission } from '../../../../services/experiment/trials/definition/submission.ts';
import { experimentYaml } from './controller-sim.ts';

const CONTEXT = { source: 'cli', eventId: 'e-1', now: 1_000 };

describe('a submission', () => {
  it('a new experiment is generation 1, its YAML as written', () => {
    const yaml = experimentYaml({ name: 'exp-a' });
    expect(decideSubmission(yaml, undefined, CONTEXT)).toEqual({
      kind: 'submit',
      event: {
        event_id: 'e-1',
        occurred_at: 1_000,
        experiment_name: 'exp-a',
        generation: 1,
        yaml,
        source: 'cli',
      },
    });
  });

  it('the same YAML again writes nothing; another is the next generation', () => {
    const yaml = experimentYaml({ name: 'exp-a' });
    expect(decideSubmission(yaml, { generation: 3, yaml }, CONTEXT)).toEqual({
      kind: 'unchanged',
      name: 'exp-a',
      generation: 3,
    });
    const more = experimentYaml({ name: 'exp-a', max: 8 });
    expect(decideSubmission(more, { generation: 3, yaml }, CONTEXT)).toMatchObject({
      kind: 'submit',
      event: { generation: 4, yaml: more },
    });
  });

  it('a bad file is refused with every problem by its path', () => {
    const bad = experimentYaml({ parallel: 0 }).replace('reference: lr', 'reference: nope');
    const decision = decideSubmission(bad, undefined, CONTEXT);
    expect(decision.kind).toBe('refused');
    const paths = decision.kind === 'refused' ? decision.problems.map((p) => p.path) : [];
    expect(paths).toEqual(
      expect.arrayContaining(['spec.parallelTrialCount', 'spec.trialTemplate.trialParameters[0].reference']),
    );
  });
});
