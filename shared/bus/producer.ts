import { randomUUID } from 'node:crypto';
import {
  CompressionTypes,
  type Kafka,
  type Message,
  Partitioners,
  type Producer,
  type RecordMetadata,
} from 'kafkajs';
import type { EventCatalog } from '../avro/catalog.ts';
import { AppError, unavailable } from '../errors.ts';
import { HEADERS } from './headers.ts';

export interface OutgoingEvent {
  readonly eventType: string;
  /** Partition key: whatever must stay in order (trial, experiment, domain, cluster). */
  readonly key: string;
  readonly payload: object;
  /** Ties the event to the request that caused it; a new one is made when absent. */
  readonly correlationId?: string;
}

export interface EventProducer {
  /**
   * Encodes every event first (a bad one rejects the whole call with INVALID_ARGUMENT and nothing
   * is sent), then resolves only after the broker acknowledged them all (acks=all). Broker
   * failures reject with UNAVAILABLE. Calls made while a request is in flight travel together in
   * the next one, each keeping its order.
   */
  publish(topic: string, events: readonly OutgoingEvent[]): Promise<void>;
  /** Sends already-encoded messages as they are (dead letters, tools). */
  sendRaw(topic: string, messages: Message[]): Promise<RecordMetadata[]>;
  disconnect(): Promise<void>;
}

interface Pending {
  readonly topic: string;
  readonly messages: Message[];
  readonly bytes: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** Bound on what one coalesced request carries; a single larger call still goes alone. */
const MAX_COALESCED_BYTES = 4 * 1024 * 1024;

export async function createEventProducer(options: {
  kafka: Kafka;
  catalog: EventCatalog;
}): Promise<EventProducer> {
  const { catalog } = options;
  const producer: Producer = options.kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  try {
    await producer.connect();
  } catch (error) {
    throw unavailable(`kafka: producer cannot connect: ${(error as Error).message}`, error);
  }

  const failure = (topic: string, error: unknown): AppError =>
    error instanceof AppError
      ? error
      : unavailable(`kafka: publishing to ${topic} failed: ${(error as Error).message}`, error);

  async function sendRaw(topic: string, messages: Message[]): Promise<RecordMetadata[]> {
    try {
      return await producer.send({ topic, acks: -1, messages, compression: CompressionTypes.None });
    } catch (error) {
      throw failure(topic, error);
    }
  }

  // The idempotent producer allows one request in flight, so a request per call would cap the
  // rate at one round trip per call: calls that arrive meanwhile are sent together instead.
  const queue: Pending[] = [];
  let sending = false;

  async function sendQueued(): Promise<void> {
    sending = true;
    try {
      while (queue.length > 0) {
        const batch: Pending[] = [queue.shift()!];
        let bytes = batch[0]!.bytes;
        while (queue.length > 0 && bytes + queue[0]!.bytes <= MAX_COALESCED_BYTES) {
          bytes += queue[0]!.bytes;
          batch.push(queue.shift()!);
        }
        await sendTogether(batch);
      }
    } finally {
      sending = false;
    }
  }

  async function sendTogether(batch: Pending[]): Promise<void> {
    const byTopic = new Map<string, Message[]>();
    for (const call of batch) {
      const messages = byTopic.get(call.topic);
      if (messages) messages.push(...call.messages);
      else byTopic.set(call.topic, [...call.messages]);
    }
    try {
      await producer.sendBatch({
        acks: -1,
        compression: CompressionTypes.None,
        topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
      });
      for (const call of batch) call.resolve();
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(failure(batch[0]!.topic, error));
      // One call's fault (a missing topic, an oversized batch) must not fail its neighbours: each
      // goes again alone. A neighbour that was in fact written is then written twice, which the
      // consumers absorb: every event carries an event_id and workers apply idempotently.
      for (const call of batch) await sendTogether([call]);
    }
  }

  return {
    publish(topic, events) {
      let messages: Message[];
      try {
        messages = events.map((event) => toMessage(event));
      } catch (error) {
        return Promise.reject(error);
      }
      const bytes = messages.reduce((sum, m) => sum + (m.value as Buffer).length, 0);
      return new Promise<void>((resolve, reject) => {
        queue.push({ topic, messages, bytes, resolve, reject });
        if (!sending) void sendQueued();
      });
    },
    sendRaw,
    disconnect: () => producer.disconnect(),
  };

  function toMessage(event: OutgoingEvent): Message {
    const value = catalog.encode(event.eventType, event.payload);
    const eventId = (event.payload as { event_id?: unknown }).event_id;
    return {
      key: event.key,
      value,
      headers: {
        [HEADERS.eventType]: event.eventType,
        [HEADERS.schemaVersion]: String(catalog.current(event.eventType).version),
        [HEADERS.correlationId]: event.correlationId ?? randomUUID(),
        ...(typeof eventId === 'string' ? { [HEADERS.eventId]: eventId } : {}),
      },
    };
  }
}
