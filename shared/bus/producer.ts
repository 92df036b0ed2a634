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

export interface Acknowledged {
  readonly partition: number;
  /** Offset of the first event of the call on its partition, as kafkajs reports it. */
  readonly baseOffset: string;
}

export interface EventProducer {
  /**
   * Encodes every event first (a bad one rejects the whole call with INVALID_ARGUMENT and nothing
   * is sent), then resolves only after the broker acknowledged them all (acks=all). Broker
   * failures reject with UNAVAILABLE.
   */
  publish(topic: string, events: readonly OutgoingEvent[]): Promise<Acknowledged[]>;
  /** Sends already-encoded messages as they are (dead letters, tools). */
  sendRaw(topic: string, messages: Message[]): Promise<RecordMetadata[]>;
  disconnect(): Promise<void>;
}

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

  async function sendRaw(topic: string, messages: Message[]): Promise<RecordMetadata[]> {
    try {
      return await producer.send({ topic, acks: -1, messages, compression: CompressionTypes.None });
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw unavailable(`kafka: publishing to ${topic} failed: ${(error as Error).message}`, error);
    }
  }

  return {
    async publish(topic, events) {
      const messages: Message[] = events.map((event) => {
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
      });
      const metadata = await sendRaw(topic, messages);
      return metadata.map((m) => ({ partition: m.partition, baseOffset: m.baseOffset ?? '-1' }));
    },
    sendRaw,
    disconnect: () => producer.disconnect(),
  };
}
