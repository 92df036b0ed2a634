import { describe, expect, it } from 'vitest';
import { parseFailpoints, withFailpoints } from '../../../shared/bus/client/failpoints.ts';
import type { KafkaClient } from '../../../shared/bus/client/types.ts';
import { kafkaSettings } from '../../../shared/bus/kafka-settings.ts';
import { toAppError } from '../../../shared/errors.ts';
import { readSettings } from '../../../shared/settings.ts';

describe('KAFKA_FAILPOINTS', () => {
  it('reads method=ERROR*times items, none by default', () => {
    expect(readSettings(kafkaSettings, {}).kafkaFailpoints).toEqual([]);
    expect(
      readSettings(kafkaSettings, {
        KAFKA_FAILPOINTS: 'committedOffsets=NOT_COORDINATOR*3, consume=REBALANCE_IN_PROGRESS*1',
      }).kafkaFailpoints,
    ).toMatchObject([
      { method: 'committedOffsets', error: 'NOT_COORDINATOR', times: 3 },
      { method: 'consume', error: 'REBALANCE_IN_PROGRESS', times: 1 },
    ]);
  });

  it.each([
    'committedOffsets=NOT_COORDINATOR',
    'close=NOT_COORDINATOR*1',
    'watermarks=OFFSET_OUT_OF_RANGE*1',
    'watermarks=LEADER_NOT_AVAILABLE*-1',
  ])('refuses %s, naming the variable and what is allowed', (text) => {
    expect(() => readSettings(kafkaSettings, { KAFKA_FAILPOINTS: text })).toThrow(
      `KAFKA_FAILPOINTS=${JSON.stringify(text)} is not allowed: for tests: comma-separated method=ERROR*times`,
    );
    expect(parseFailpoints(text)).toBeUndefined();
  });

  it("fails the first calls of a method with the library's retriable protocol error, then calls through", async () => {
    let calls = 0;
    const client = { name: 'fake', committedOffsets: async () => new Map([[0, BigInt(++calls)]]) };
    const failing = withFailpoints(
      client as unknown as KafkaClient,
      parseFailpoints('committedOffsets=NOT_COORDINATOR*2')!,
    );
    for (let i = 0; i < 2; i++) {
      const error = await failing.committedOffsets('g', 't').catch((e: unknown) => e);
      expect(error).toMatchObject({
        name: 'KafkaJSProtocolError',
        type: 'NOT_COORDINATOR',
        code: 16,
        retriable: true,
      });
      // What the service makes of it: UNAVAILABLE, to be tried again.
      expect(toAppError(error)).toMatchObject({ code: 'UNAVAILABLE', retriable: true });
    }
    expect(await failing.committedOffsets('g', 't')).toEqual(new Map([[0, 1n]]));
    // A second client of the process (a component restarted on a new thread) does not fail again.
    const points = parseFailpoints('committedOffsets=NOT_COORDINATOR*1')!;
    await expect(
      withFailpoints(client as unknown as KafkaClient, points).committedOffsets('g', 't'),
    ).rejects.toThrow();
    expect(await withFailpoints(client as unknown as KafkaClient, points).committedOffsets('g', 't')).toEqual(
      new Map([[0, 2n]]),
    );
    expect(failing.name).toBe('fake');
    expect(withFailpoints(client as unknown as KafkaClient, [])).toBe(client);
  });
});
