import { Counter, type Registry } from 'prom-client';

export interface BusMetrics {
  readonly consumed: Counter<'topic' | 'group'>;
  readonly deadLettered: Counter<'topic' | 'group'>;
  readonly handlerRetries: Counter<'topic' | 'group'>;
}

/** One set of bus counters per registry, shared by every worker registered on it. */
export function busMetrics(registry: Registry): BusMetrics {
  const counter = (name: string, help: string): Counter<'topic' | 'group'> =>
    (registry.getSingleMetric(name) as Counter<'topic' | 'group'> | undefined) ??
    new Counter({ name, help, labelNames: ['topic', 'group'], registers: [registry] });
  return {
    consumed: counter('bus_events_consumed_total', 'Events handled and committed by a worker'),
    deadLettered: counter(
      'bus_events_dead_lettered_total',
      'Events sent to <topic>.dlq because they can never be processed',
    ),
    handlerRetries: counter(
      'bus_handler_retries_total',
      'Retries of a worker handler after a retriable failure',
    ),
  };
}

export interface ProducerMetrics {
  /** Produce requests sent (each carries the calls that were queued while the previous one was in flight). */
  readonly requests: Counter;
  /** publish calls sent, and the events they carried. */
  readonly calls: Counter;
  readonly events: Counter;
  /** Producers replaced after a failed send or a loss of Kafka. */
  readonly replaced: Counter;
}

export function producerMetrics(registry: Registry): ProducerMetrics {
  const counter = (name: string, help: string): Counter =>
    (registry.getSingleMetric(name) as Counter | undefined) ??
    new Counter({ name, help, registers: [registry] });
  return {
    requests: counter(
      'bus_produce_requests_total',
      'Sends to Kafka by the event producer (concurrent calls travel together)',
    ),
    calls: counter('bus_produce_calls_total', 'Calls of the event producer sent to Kafka'),
    events: counter('bus_produce_events_total', 'Events (records) the event producer sent to Kafka'),
    replaced: counter(
      'bus_producers_replaced_total',
      'Kafka producers the event producer replaced by a new one (new producer id) after a failed send or a loss of Kafka',
    ),
  };
}
