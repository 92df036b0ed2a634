// Errors and records between @platformatic/kafka and the bus's client interface.
import type { Message, MessageToProduce } from '@platformatic/kafka';
import type { OutgoingRecord, RawRecord } from './types.ts';

type Failure = Error & { canRetry?: boolean; apiId?: string; errors?: Failure[] };

/** Every protocol error id inside an error (a ResponseError carries several). */
export function apiIds(error: unknown): string[] {
  const failure = error as Failure;
  return [...(failure.apiId ? [failure.apiId] : []), ...(failure.errors ?? []).flatMap(apiIds)];
}

/**
 * The library says `canRetry`; the rest of the code (errors.ts, ensureTopics, the worker) reads
 * `retriable`, as the Kafka clients before it set it.
 */
export function asRetriable(error: unknown): unknown {
  if (error instanceof Error) {
    const failure = error as Failure;
    const retriable =
      failure.canRetry === true ||
      (failure.errors ?? []).some((e) => e.canRetry === true && !e.apiId?.includes('TOPIC_ALREADY'));
    Object.defineProperty(error, 'retriable', { value: retriable, configurable: true });
  }
  return error;
}

export async function translated<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw asRetriable(error);
  }
}

function headerText(headers: Map<Buffer, Buffer>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of headers) {
    const key = name.toString('utf8');
    if (!(key in out)) out[key] = value.toString('utf8');
  }
  return out;
}

export function toMessage(record: OutgoingRecord): MessageToProduce {
  return {
    topic: record.topic,
    partition: record.partition,
    ...(record.key === null
      ? {}
      : { key: Buffer.isBuffer(record.key) ? record.key : Buffer.from(record.key) }),
    ...(record.value === null ? {} : { value: record.value }),
    headers: new Map(Object.entries(record.headers).map(([k, v]) => [Buffer.from(k), Buffer.from(v)])),
  };
}

export const toRawRecord = (m: Message<Buffer, Buffer, Buffer, Buffer>): RawRecord => ({
  offset: m.offset,
  timestamp: Number(m.timestamp),
  key: m.key ?? null,
  value: m.value ?? null,
  headers: headerText(m.headers),
});
