// The controller's Katib calls: built from its world, read by the Suggestion service's own request
// reader and answered by its algorithms, as the in-process call does (no network).
import { describe, expect, it } from 'vitest';
import type { GetSuggestionsReply__Output } from '../../../../proto/gen/api/v1/beta1/GetSuggestionsReply.ts';
import { readSuggestionsRequest } from '../../../../services/experiment/suggestion/adapters/suggestions-request.ts';
import { ALGORITHMS } from '../../../../services/experiment/suggestion/registry.ts';
import { suggest } from '../../../../services/experiment/suggestion/suggest.ts';
import {
  earlyStoppingRulesRequest,
  observationOf,
  suggestedTrials,
  suggestionsRequest,
} from '../../../../services/experiment/trials/katib-requests.ts';
import { loadPackageDefinition, lookupService } from '../../../../shared/grpc.ts';
import { experimentYaml, Sim } from './controller-sim.ts';

const Suggestion = lookupService(loadPackageDefinition(['api/v1beta1/api.proto']), 'api.v1.beta1.Suggestion');
/** The request as the Suggestion service reads it off the wire. */
const overTheWire = (request: object) =>
  readSuggestionsRequest(Suggestion.service.GetSuggestions!.requestSerialize(request))!;

describe("the controller's GetSuggestions", () => {
  it("carries the experiment's spec; the Suggestion service answers it", () => {
    const sim = new Sim();
    sim.submit(experimentYaml({ parallel: 2, max: 4 }));
    const request = suggestionsRequest(sim.world, 'exp', 2)!;
    expect(request.experiment?.spec).toMatchObject({
      parameter_specs: {
        parameters: [
          {
            name: 'lr',
            parameter_type: 'DOUBLE',
            feasible_space: { min: '0.01', max: '0.05', distribution: 'UNIFORM' },
          },
        ],
      },
      objective: { type: 'MINIMIZE', objective_metric_name: 'loss' },
      algorithm: { algorithm_name: 'random', algorithm_settings: [] },
      parallel_trial_count: 2,
      max_trial_count: 4,
    });
    expect([request.current_request_number, request.total_request_number]).toEqual([2, 2]);

    const { reply } = suggest(overTheWire(request), ALGORITHMS);
    const { trials } = suggestedTrials(reply as GetSuggestionsReply__Output);
    expect(trials).toHaveLength(2);
    for (const t of trials) {
      expect(t.assignments.map((a) => a.name)).toEqual(['lr']);
      const lr = Number(t.assignments[0]!.value);
      expect(lr >= 0.01 && lr <= 0.05).toBe(true);
    }
  });

  it('sends every trial with its condition and its objective by strategy; total counts what was asked', () => {
    const sim = new Sim();
    sim.submit(experimentYaml({ parallel: 2, max: 4 }));
    sim.settle();
    sim.answer(2);
    sim.settle();
    const [first, second] = sim.trialNames();
    sim.complete(first!, '0.25');
    sim.settle();
    const request = suggestionsRequest(sim.world, 'exp', 1)!;
    expect(request.total_request_number).toBe(3);
    const byName = new Map(request.trials!.map((t) => [t.name, t]));
    expect(byName.get(first!)?.status).toMatchObject({
      condition: 'SUCCEEDED',
      observation: { metrics: [{ name: 'loss', value: '0.25' }] },
    });
    expect(byName.get(first!)?.spec?.parameter_assignments?.assignments).toEqual([
      { name: 'lr', value: '0.01' },
    ]);
    expect(byName.get(second!)?.status).toMatchObject({ condition: 'CREATED', observation: { metrics: [] } });
    // The service reads the succeeded trial as history.
    expect(() => suggest(overTheWire(request), ALGORITHMS)).not.toThrow();
  });

  it('nothing for an experiment it does not know', () => {
    expect(suggestionsRequest(new Sim().world, 'nope', 1)).toBeUndefined();
  });
});

describe('the other calls', () => {
  it('GetEarlyStoppingRules carries the early-stopping spec', () => {
    const sim = new Sim();
    sim.submit(
      experimentYaml({
        extra:
          '  earlyStopping: { algorithmName: medianstop, algorithmSettings: [{ name: start_step, value: "2" }] }\n',
      }),
    );
    expect(earlyStoppingRulesRequest(sim.world, 'exp')?.experiment?.spec?.early_stopping).toEqual({
      algorithm_name: 'medianstop',
      algorithm_settings: [{ name: 'start_step', value: '2' }],
    });
  });

  it('a GetObservationLog answer becomes the observation: latest, min and max per metric', () => {
    const log = (time: string, name: string, value: string) => ({
      time_stamp: time,
      metric: { name, value },
    });
    expect(
      observationOf({
        observation_log: {
          metric_logs: [
            log('2026-01-01T00:00:01Z', 'loss', '0.5'),
            log('2026-01-01T00:00:02Z', 'loss', '0.2'),
            log('2026-01-01T00:00:03Z', 'loss', '0.3'),
          ],
        },
      }),
    ).toEqual([{ name: 'loss', min: '0.2', max: '0.5', latest: '0.3' }]);
  });
});
