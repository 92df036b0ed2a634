import { describe, expect, it } from 'vitest';
import type { EarlyStoppingRulesIssuedV2 } from '../../../../schemas/gen/events.ts';
import {
  rungRecordedEvent,
  toRecordedRung,
  toRulesIssued,
} from '../../../../services/experiment/earlystopping/adapters/rules-events.ts';
import { loadCatalog } from '../../../../shared/avro/catalog.ts';
import { memoryLogger } from '../../../helpers/memory-logger.ts';

const catalog = loadCatalog();
const v1Rules = {
  event_id: 'e1',
  occurred_at: 1_000,
  experiment_name: 'exp',
  objective_metric: 'loss',
  objective_type: 'MINIMIZE',
  rules: [{ name: 'loss', value: '0.5', comparison: 'GREATER', start_step: 4 }],
  trials: [{ name: 'exp-a', condition: 'SUCCEEDED' }],
};

const decoded = (bytes: Buffer) => catalog.decode(bytes).payload as unknown as EarlyStoppingRulesIssuedV2;

describe('the rules topic’s events for the judge', () => {
  it('reads an EarlyStoppingRulesIssued written as v1 (before pruners): its rules alone judge', () => {
    const v1 = loadCatalog(undefined, { pin: { EarlyStoppingRulesIssued: 1 } });
    const bytes = v1.encode('EarlyStoppingRulesIssued', v1Rules);
    expect(catalog.decode(bytes)).toMatchObject({ writerVersion: 1, readerVersion: 2 });
    const payload = decoded(bytes);
    expect(payload).toMatchObject({
      algorithm_name: '',
      algorithm_settings: [],
      succeeded_trials: 0,
      succeeded_max_steps: 0,
      reference_steps: [],
    });
    const issued = toRulesIssued(payload, memoryLogger().logger);
    expect(issued.pruner).toBeUndefined();
    expect(issued.rules).toEqual([{ name: 'loss', value: '0.5', comparison: 'GREATER', startStep: 4 }]);
  });

  it('reads a v2 pruner with its settings and reference', () => {
    const bytes = catalog.encode('EarlyStoppingRulesIssued', {
      ...v1Rules,
      algorithm_name: 'percentile',
      algorithm_settings: [{ name: 'percentile', value: '25' }],
      succeeded_trials: 6,
      succeeded_max_steps: 10,
      reference_steps: [{ step: 1, value: 0.25 }],
    });
    expect(toRulesIssued(decoded(bytes), memoryLogger().logger)).toMatchObject({
      pruner: { algorithm: 'percentile', settings: { percentile: 25 } },
      reference: { succeededTrials: 6, succeededMaxSteps: 10, steps: [{ step: 1, value: 0.25 }] },
    });
  });

  it('keeps the rules of an algorithm it does not know (a newer service), and says so', () => {
    const { logger, lines } = memoryLogger();
    const payload = decoded(
      catalog.encode('EarlyStoppingRulesIssued', {
        ...v1Rules,
        algorithm_name: 'some-future-pruner',
        algorithm_settings: [],
        succeeded_trials: 0,
        succeeded_max_steps: 0,
        reference_steps: [],
      }),
    );
    const issued = toRulesIssued(payload, logger);
    expect(issued.pruner).toBeUndefined();
    expect(issued.rules).toMatchObject([{ value: '0.5' }]);
    expect(lines).toMatchObject([
      { level: 'warn', msg: 'early-stopping algorithm unknown to this judge: only its rules are applied' },
    ]);
  });

  it('writes and reads back a rung record, with an event id derived from trial, bracket and rung', () => {
    const record = {
      experimentName: 'exp',
      algorithm: 'hyperband',
      trialName: 'exp-a',
      bracket: 1,
      rung: 2,
      step: 9,
      value: 0.125,
      promoted: false,
    };
    const event = rungRecordedEvent(record, 5_000);
    expect(event.key).toBe('exp');
    expect(rungRecordedEvent({ ...record, value: 9 }, 6_000).payload.event_id).toBe(event.payload.event_id);
    expect(rungRecordedEvent({ ...record, rung: 3 }, 5_000).payload.event_id).not.toBe(
      event.payload.event_id,
    );
    const back = catalog.decode(catalog.encode(event.eventType, event.payload)).payload;
    expect(toRecordedRung(back as never)).toEqual(record);
  });
});
