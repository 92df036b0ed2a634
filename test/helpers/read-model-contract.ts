import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TypedEvent } from '../../schemas/gen/events.ts';
import type { ObservationStore } from '../../services/experiment/common/ports.ts';
import type { TrialPageQuery } from '../../services/experiment/common/read-model.ts';
import type { ReadModelStore } from '../../services/experiment/dbmanager/adapters/read-model-store.ts';
import { readModelChanges } from '../../services/experiment/dbmanager/read-model.ts';

const at = Date.UTC(2026, 0, 1);
const stamp = (s: number) => new Date(at + s * 1000).toISOString().replace('Z', '000Z');

/** Trial i: lr, optimizer (not on every trial), objective values (none on some), condition. */
const TRIALS = [
  { lr: '0.5', optimizer: 'sgd', loss: ['0.9', '0.4'], condition: 'SUCCEEDED' },
  { lr: '0.05', optimizer: 'adam', loss: ['0.3'], condition: 'EARLYSTOPPED' },
  { lr: '1e-3', optimizer: '', loss: [], condition: 'RUNNING' },
  { lr: '0.25', optimizer: 'adam', loss: ['0.7', 'nan', '0.8'], condition: 'SUCCEEDED' },
  { lr: 'auto', optimizer: 'sgd', loss: ['0.3'], condition: 'EARLYSTOPPED' },
  { lr: '0.125', optimizer: 'Adam_2', loss: ['0.6', '0.2'], condition: 'SUCCEEDED' },
  { lr: '2', optimizer: 'sgd', loss: [], condition: 'RUNNING' },
] as const;

export interface ReadModelUnderTest {
  readonly store: ObservationStore;
  readonly readModel: ReadModelStore;
  close(): Promise<void>;
}

/** The read model's trial queries, the same at every database. */
export function describeReadModelContract(name: string, open: () => Promise<ReadModelUnderTest>): void {
  describe(`read model trials: ${name}`, () => {
    let db: ReadModelUnderTest;
    const experiment = `exp-${randomUUID()}`;
    const trial = (i: number) => `${experiment}-T${String(i + 1).padStart(2, '0')}`;
    const page = (query: Partial<TrialPageQuery>, of = experiment) =>
      db.readModel.trialPage(of, {
        offset: 0,
        limit: 50,
        sort: { column: 'order' },
        descending: false,
        ...query,
      });
    const names = async (query: Partial<TrialPageQuery>) => (await page(query)).trials.map((t) => t.name);
    const T = (...indexes: number[]) => indexes.map(trial);

    beforeAll(async () => {
      db = await open();
      const event: TypedEvent<Date | number> = {
        eventType: 'SuggestionsIssued',
        payload: {
          event_id: randomUUID(),
          occurred_at: at,
          experiment_name: experiment,
          algorithm_name: 'random',
          objective_metric: 'loss',
          objective_type: 'MINIMIZE',
          current_request_number: 1,
          total_request_number: 1,
          trial_count: TRIALS.length,
          completed_trial_count: 0,
          suggestions: [],
          algorithm_settings: [],
          objectives: [],
          parameters: [],
          trials_complete: true,
          trials: TRIALS.map((t, i) => ({
            name: trial(i),
            condition: t.condition === 'EARLYSTOPPED' ? 'RUNNING' : t.condition,
            assignments: [
              { name: 'lr', value: t.lr },
              ...(t.optimizer === '' ? [] : [{ name: 'optimizer', value: t.optimizer }]),
            ],
          })),
        },
      };
      await db.readModel.apply(readModelChanges(event));
      // Stopped trials from the store's statuses; objective values from its logs.
      await db.store.apply(
        TRIALS.flatMap((t, i) => [
          ...(t.condition === 'EARLYSTOPPED'
            ? [
                {
                  kind: 'status' as const,
                  eventId: randomUUID(),
                  trialName: trial(i),
                  condition: 'EARLYSTOPPED',
                  reason: 'TrialEarlyStopped',
                  message: '',
                  changedAtMs: at,
                },
              ]
            : []),
          {
            kind: 'reported' as const,
            eventId: randomUUID(),
            trialName: trial(i),
            logs: t.loss.map((value, k) => ({ time: stamp(k), metricName: 'loss', value })),
          },
        ]),
      );
    });
    afterAll(async () => {
      await db?.close();
    });

    it('pages the trials in their order, with the total', async () => {
      const first = await page({ limit: 3 });
      expect(first.total).toBe(7);
      expect(first.trials.map((t) => [t.order, t.name])).toEqual([
        [1, trial(0)],
        [2, trial(1)],
        [3, trial(2)],
      ]);
      expect(await names({ offset: 6, limit: 3 })).toEqual(T(6));
      expect(await page({ offset: 9, limit: 3 })).toEqual({ total: 7, trials: [] });
      expect(await names({ descending: true, limit: 2 })).toEqual(T(6, 5));
    });

    it('sorts by best objective (the lowest, minimizing): trials without one last both ways, ties in order', async () => {
      expect(await names({ sort: { column: 'bestObjective' } })).toEqual(T(5, 1, 4, 0, 3, 2, 6));
      expect(await names({ sort: { column: 'bestObjective' }, descending: true })).toEqual(
        T(3, 0, 1, 4, 5, 2, 6),
      );
      const [best] = (await page({ sort: { column: 'bestObjective' }, limit: 1 })).trials;
      expect(best).toMatchObject({
        order: 6,
        bestObjective: 0.2,
        objectivePoints: 2,
        condition: 'SUCCEEDED',
      });
      // "nan" is no number: two points.
      expect((await page({ offset: 3, limit: 1 })).trials[0]).toMatchObject({
        bestObjective: 0.7,
        objectivePoints: 2,
      });
    });

    it('sorts by a parameter: numbers as numbers before text, a trial without it last', async () => {
      expect(await names({ sort: { parameter: 'lr' } })).toEqual(T(2, 1, 5, 3, 0, 6, 4));
      expect(await names({ sort: { parameter: 'lr' }, descending: true })).toEqual(T(6, 0, 3, 5, 1, 2, 4));
      expect(await names({ sort: { parameter: 'optimizer' } })).toEqual(T(5, 1, 3, 0, 4, 6, 2));
      expect(await names({ sort: { parameter: 'no such' } })).toEqual(T(0, 1, 2, 3, 4, 5, 6));
    });

    it('sorts by name and status byte by byte', async () => {
      expect(await names({ sort: { column: 'name' }, descending: true })).toEqual(T(6, 5, 4, 3, 2, 1, 0));
      expect(await names({ sort: { column: 'condition' } })).toEqual(T(1, 4, 2, 6, 0, 3, 5));
    });

    it('filters by status and by a part of the name (ASCII case ignored, % and _ taken literally)', async () => {
      expect(await page({ condition: 'EARLYSTOPPED' })).toMatchObject({ total: 2 });
      expect(await names({ condition: 'EARLYSTOPPED', sort: { column: 'bestObjective' } })).toEqual(T(1, 4));
      expect(await page({ nameContains: '-t0', limit: 2 })).toMatchObject({ total: 7 });
      expect(await names({ nameContains: 't05' })).toEqual(T(4));
      expect(await page({ nameContains: '%' })).toEqual({ total: 0, trials: [] });
      expect(await page({ nameContains: '_' })).toEqual({ total: 0, trials: [] });
      expect(await page({ condition: 'RUNNING', nameContains: 'T07' })).toMatchObject({ total: 1 });
    });

    it('gives every trial in columns for the charts', async () => {
      expect(await db.readModel.trialSummary(experiment)).toEqual({
        names: T(0, 1, 2, 3, 4, 5, 6),
        conditions: TRIALS.map((t) => t.condition),
        best: [0.4, 0.3, null, 0.7, 0.3, 0.2, null],
        parameters: ['lr', 'optimizer'],
        values: [TRIALS.map((t) => t.lr), TRIALS.map((t) => t.optimizer)],
      });
      expect(await db.readModel.trial(trial(4))).toMatchObject({ order: 5, condition: 'EARLYSTOPPED' });
    });

    it("knows a multi-objective experiment's objectives and search space, and each trial's value of each", async () => {
      const mo = `${experiment}-mo`;
      const space = [
        {
          name: 'lr',
          parameter_type: 'DOUBLE',
          min: '0.001',
          max: '0.1',
          step: '',
          list: [],
          distribution: 'LOG_UNIFORM',
        },
      ];
      const issued = (objectives: { metric_name: string; type: 'MAXIMIZE' | 'MINIMIZE' }[]) =>
        readModelChanges({
          eventType: 'SuggestionsIssued',
          payload: {
            event_id: randomUUID(),
            occurred_at: at,
            experiment_name: mo,
            algorithm_name: 'nsga2',
            objective_metric: 'accuracy',
            objective_type: 'MAXIMIZE',
            current_request_number: 1,
            total_request_number: 1,
            trial_count: 3,
            completed_trial_count: 0,
            suggestions: [],
            algorithm_settings: [],
            trials_complete: true,
            trials: ['a', 'b', 'c'].map((t) => ({
              name: `${mo}-${t}`,
              condition: t === 'c' ? 'RUNNING' : 'SUCCEEDED',
              assignments: [{ name: 'lr', value: '0.01' }],
            })),
            objectives,
            parameters: objectives.length === 0 ? [] : space,
          },
        });
      await db.readModel.apply(
        issued([
          { metric_name: 'accuracy', type: 'MAXIMIZE' },
          { metric_name: 'latency_ms', type: 'MINIMIZE' },
        ]),
      );
      // A later event without them (an older instance's) leaves them as they were.
      await db.readModel.apply(issued([]));
      await db.store.apply([
        {
          kind: 'reported',
          eventId: randomUUID(),
          trialName: `${mo}-a`,
          logs: [
            { time: stamp(0), metricName: 'accuracy', value: '0.5' },
            { time: stamp(1), metricName: 'accuracy', value: '0.9' },
            { time: stamp(2), metricName: 'accuracy', value: '0.7' },
            { time: stamp(0), metricName: 'latency_ms', value: '30' },
            { time: stamp(1), metricName: 'latency_ms', value: '20' },
            { time: stamp(2), metricName: 'latency_ms', value: '25' },
          ],
        },
        {
          kind: 'reported',
          eventId: randomUUID(),
          trialName: `${mo}-b`,
          logs: [{ time: stamp(0), metricName: 'accuracy', value: '0.4' }],
        },
      ]);
      expect(await db.readModel.experiment(mo)).toMatchObject({
        objectiveMetric: 'accuracy',
        objectives: [
          { metricName: 'accuracy', type: 'MAXIMIZE' },
          { metricName: 'latency_ms', type: 'MINIMIZE' },
        ],
        parameters: [
          {
            name: 'lr',
            parameterType: 'DOUBLE',
            min: '0.001',
            max: '0.1',
            step: '',
            list: [],
            distribution: 'LOG_UNIFORM',
          },
        ],
      });
      const objectives = [
        { metricName: 'accuracy', type: 'MAXIMIZE' },
        { metricName: 'latency_ms', type: 'MINIMIZE' },
      ] as const;
      // Each objective's best in its own direction: the highest accuracy, the lowest latency.
      expect(await db.readModel.trialObjectives(mo, objectives)).toEqual({
        names: [`${mo}-a`, `${mo}-b`, `${mo}-c`],
        conditions: ['SUCCEEDED', 'SUCCEEDED', 'RUNNING'],
        assignments: [1, 2, 3].map(() => [{ name: 'lr', value: '0.01' }]),
        values: [
          [0.9, 0.4, null],
          [20, null, null],
        ],
      });
      // A single-objective experiment's objectives are its objective alone.
      expect((await db.readModel.experiment(experiment))?.objectives).toEqual([
        { metricName: 'loss', type: 'MINIMIZE' },
      ]);
      expect(await db.readModel.trialObjectives('no-such-experiment', objectives)).toEqual({
        names: [],
        conditions: [],
        assignments: [],
        values: [[], []],
      });
    });

    it('has nothing of an unknown experiment', async () => {
      expect(await page({}, 'no-such-experiment')).toEqual({ total: 0, trials: [] });
      expect(await db.readModel.trialSummary('no-such-experiment')).toEqual({
        names: [],
        conditions: [],
        best: [],
        parameters: [],
        values: [],
      });
    });
  });
}
