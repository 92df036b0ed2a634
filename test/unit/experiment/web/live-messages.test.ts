import { describe, expect, it } from 'vitest';
import { toLiveMessage } from '../../../../services/experiment/web/live-messages.ts';
import type { ConsumedEvent } from '../../../../shared/bus/index.ts';

const consumed = (event: Pick<ConsumedEvent, 'eventType' | 'payload'>): ConsumedEvent =>
  ({ ...event, topic: 't', partition: 0, offset: 0n, key: 'k' }) as unknown as ConsumedEvent;

describe('toLiveMessage', () => {
  it("shows the trial controller's new trials to the experiment's page", () => {
    const message = toLiveMessage(
      consumed({
        eventType: 'TrialsCreated',
        payload: {
          event_id: 'e1',
          occurred_at: new Date(0),
          experiment_name: 'exp',
          generation: 1,
          total_request_number: 2,
          trials: [
            { name: 'exp-a', assignments: [], labels: {} },
            { name: 'exp-b', assignments: [], labels: {} },
          ],
          algorithm_settings: [],
        },
      }),
    );
    expect(message).toEqual({
      type: 'trials',
      experiment: 'exp',
      trial: undefined,
      data: { experiment: 'exp', trials: ['exp-a', 'exp-b'] },
    });
  });
});
