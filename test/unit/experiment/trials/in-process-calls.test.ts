// The controller's in-process calls against the real Suggestion service (its codec and handlers;
// the published SuggestionsIssued goes to an in-memory producer), no network.

import { describe, expect, it } from 'vitest';
import { experimentTopics } from '../../../../services/experiment/common/bus-names.ts';
import { createSuggestionHandlers } from '../../../../services/experiment/suggestion/adapters/grpc-handlers.ts';
import { withSuggestionsRequestReader } from '../../../../services/experiment/suggestion/adapters/suggestions-request.ts';
import { createInProcessCalls } from '../../../../services/experiment/trials/adapters/in-process-calls.ts';
import {
  suggestedTrials,
  suggestionsRequest,
} from '../../../../services/experiment/trials/katib-requests.ts';
import { systemClock } from '../../../../shared/clock.ts';
import { loadPackageDefinition, lookupService } from '../../../../shared/grpc.ts';
import { silentLogger } from '../../../../shared/logger.ts';
import { protoService } from '../../../../shared/rpc/proto-service.ts';
import { experimentYaml, Sim } from './controller-sim.ts';

function suggestionService() {
  const published: unknown[] = [];
  const api = loadPackageDefinition(['api/v1beta1/api.proto']);
  const service = protoService(
    withSuggestionsRequestReader(lookupService(api, 'api.v1.beta1.Suggestion').service),
    {
      unary: createSuggestionHandlers({
        producer: { publish: async (_topic, events) => void published.push(...events) },
        topic: experimentTopics('').suggestions.name,
        clock: systemClock,
        logger: silentLogger,
      }),
    },
  );
  return { service, published };
}

describe("the controller's in-process calls", () => {
  it('GetSuggestions goes through the service as a gRPC call would, its reply read back', async () => {
    const { service, published } = suggestionService();
    const calls = createInProcessCalls({ services: [service], deadlineMs: 10_000 });
    const sim = new Sim();
    sim.submit(experimentYaml({ parallel: 3, max: 6 }));
    const reply = await calls.getSuggestions(suggestionsRequest(sim.world, 'exp', 3)!);
    const { trials } = suggestedTrials(reply);
    expect(trials).toHaveLength(3);
    for (const t of trials) expect(Number(t.assignments[0]?.value)).toBeGreaterThanOrEqual(0.01);
    expect(published).toHaveLength(1);
  });

  it("a refusal keeps the service's code and message", async () => {
    const { service } = suggestionService();
    const calls = createInProcessCalls({ services: [service], deadlineMs: 10_000 });
    const sim = new Sim();
    sim.submit(experimentYaml());
    const request = suggestionsRequest(sim.world, 'exp', 1)!;
    const broken = {
      ...request,
      experiment: {
        ...request.experiment,
        spec: { ...request.experiment!.spec, algorithm: { algorithm_name: 'nope' } },
      },
    };
    await expect(calls.getSuggestions(broken)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: 'unknown algorithm name nope',
    });
  });

  it('a service this instance does not host is UNAVAILABLE, naming it', async () => {
    const calls = createInProcessCalls({ services: [], deadlineMs: 1_000 });
    await expect(calls.getObservationLog({ trial_name: 't' })).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: '/api.v1.beta1.DBManager/GetObservationLog: this instance does not host DBManager',
    });
  });
});
