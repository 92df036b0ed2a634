import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import type { TrialStatusChangedV1, TypedEvent } from '../../../../schemas/gen/events.ts';
import { openReadModel } from '../../../../services/experiment/dbmanager/adapters/read-model-store.ts';
import { openSqliteObservationStore } from '../../../../services/experiment/dbmanager/adapters/sqlite-observation-store.ts';
import { toChange } from '../../../../services/experiment/dbmanager/observation-events.ts';
import { readModelChanges } from '../../../../services/experiment/dbmanager/read-model.ts';
import { describeReadModelContract } from '../../../helpers/read-model-contract.ts';

const folder = mkdtempSync(join(tmpdir(), 'read-model-store-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const at = Date.UTC(2026, 0, 1);
const PAGE = { offset: 0, limit: 10, sort: { column: 'order' }, descending: false } as const;

type Condition = TrialStatusChangedV1['condition'];

const suggestionsIssued = (trials: { name: string; condition: Condition }[]): TypedEvent<Date | number> => ({
  eventType: 'SuggestionsIssued',
  payload: {
    event_id: `s-${trials.map((t) => t.condition).join('-')}`,
    occurred_at: at,
    experiment_name: 'exp',
    algorithm_name: 'random',
    objective_metric: 'loss',
    objective_type: 'MINIMIZE',
    current_request_number: 1,
    total_request_number: 1,
    trial_count: trials.length,
    completed_trial_count: 0,
    suggestions: [],
    algorithm_settings: [],
    objectives: [],
    parameters: [],
    trials: trials.map((t) => ({ ...t, assignments: [{ name: 'lr', value: '0.1' }] })),
    trials_complete: true,
  },
});

const statusChanged = (trial: string, experiment: string, condition: Condition): TypedEvent => ({
  eventType: 'TrialStatusChanged',
  payload: {
    event_id: `st-${trial}-${condition}`,
    occurred_at: new Date(at + 5_000),
    trial_name: trial,
    experiment_name: experiment,
    condition,
    reason: 'TrialEarlyStopped',
    message: 'stopped by medianstop',
    source: 'early-stopping-worker',
  },
});

/** What the persistence consumer does with a batch: the store's changes, then the read model's. */
async function open(name: string) {
  const file = join(folder, `${name}.db`);
  const store = openSqliteObservationStore({ file });
  const readModel = await openReadModel({ kind: 'sqlite', file }, store);
  const persist = async (...events: TypedEvent[]) => {
    const stored = events.filter((e) => e.eventType === 'TrialStatusChanged');
    if (stored.length > 0) await store.apply(stored.map(toChange));
    await readModel.apply(events.flatMap((e) => readModelChanges(e)));
  };
  const close = async () => {
    await readModel.close();
    await store.close();
  };
  return { file, store, readModel, persist, close };
}

describeReadModelContract('SQLite', async () => {
  const { store, readModel, close } = await open('contract');
  return { store, readModel, close };
});

describe('read model store (SQLite)', () => {
  it("shows a trial's status from the observation store, which alone holds it", async () => {
    const { file, store, readModel, persist, close } = await open('status-once');
    await readModel.apply(readModelChanges(suggestionsIssued([{ name: 'exp-a', condition: 'RUNNING' }])));
    expect(await readModel.trial('exp-a')).toMatchObject({ condition: 'RUNNING', statusAtMs: null });

    await persist(statusChanged('exp-a', 'exp', 'EARLYSTOPPED'));
    const shown = {
      condition: 'EARLYSTOPPED',
      reason: 'TrialEarlyStopped',
      message: 'stopped by medianstop',
      statusAtMs: at + 5_000,
    };
    expect(await readModel.trial('exp-a')).toMatchObject({ ...shown, experiment: 'exp', order: 1 });
    expect((await readModel.trialPage('exp', PAGE)).trials).toEqual([expect.objectContaining(shown)]);
    expect(await store.trialStatus('exp-a')).toMatchObject({ condition: 'EARLYSTOPPED' });
    await close();

    // The read model's own row keeps no status: it is written once, in the store's trial_statuses.
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      expect(db.prepare('SELECT reason, message, status_at_ms FROM read_trials').all()).toEqual([
        { reason: '', message: '', status_at_ms: null },
      ]);
    } finally {
      db.close();
    }
  });

  it('keeps a recorded status over conditions listed later', async () => {
    const { readModel, persist, close } = await open('listed-later');
    await persist(statusChanged('exp-a', 'exp', 'EARLYSTOPPED'));
    await readModel.apply(readModelChanges(suggestionsIssued([{ name: 'exp-a', condition: 'RUNNING' }])));
    expect(await readModel.trial('exp-a')).toMatchObject({ condition: 'EARLYSTOPPED', experiment: 'exp' });
    await close();
  });

  it('lists a trial known only from its status under the experiment the status names', async () => {
    const { readModel, persist, close } = await open('status-only');
    await persist(statusChanged('exp-z', 'exp', 'EARLYSTOPPED'));
    expect(await readModel.trialNames('exp')).toEqual(['exp-z']);
    expect(await readModel.trial('exp-z')).toMatchObject({ condition: 'EARLYSTOPPED', assignments: [] });
    await close();
  });

  it('opens a read model made before objectives and parameters were kept, and adds them', async () => {
    const file = join(folder, 'before-objectives.db');
    const old = new DatabaseSync(file);
    old.exec(`CREATE TABLE read_experiments (
      name TEXT PRIMARY KEY, algorithm TEXT NOT NULL, objective_metric TEXT NOT NULL,
      objective_type TEXT NOT NULL, rules TEXT NOT NULL,
      created_at_ms INTEGER NOT NULL, updated_at_ms INTEGER NOT NULL);
      INSERT INTO read_experiments VALUES ('old', 'tpe', 'loss', 'MINIMIZE', '[]', 1, 1);`);
    old.close();
    const store = openSqliteObservationStore({ file });
    const readModel = await openReadModel({ kind: 'sqlite', file }, store);
    expect(await readModel.experiment('old')).toMatchObject({
      objectives: [{ metricName: 'loss', type: 'MINIMIZE' }],
      parameters: [],
    });
    await readModel.close();
    await store.close();
  });
});
