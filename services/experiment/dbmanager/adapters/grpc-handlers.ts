import { randomUUID } from 'node:crypto';
import type { DeleteObservationLogReply } from '../../../../proto/gen/api/v1/beta1/DeleteObservationLogReply.ts';
import type { DeleteObservationLogRequest__Output } from '../../../../proto/gen/api/v1/beta1/DeleteObservationLogRequest.ts';
import type { GetObservationLogReply } from '../../../../proto/gen/api/v1/beta1/GetObservationLogReply.ts';
import type { GetObservationLogRequest__Output } from '../../../../proto/gen/api/v1/beta1/GetObservationLogRequest.ts';
import type { ReportObservationLogReply } from '../../../../proto/gen/api/v1/beta1/ReportObservationLogReply.ts';
import type { ReportObservationLogRequest__Output } from '../../../../proto/gen/api/v1/beta1/ReportObservationLogRequest.ts';
import type { EventProducer } from '../../../../shared/bus/index.ts';
import type { Clock } from '../../../../shared/clock.ts';
import { toKatibTime } from '../../../../shared/rfc3339.ts';
import type { UnaryHandler } from '../../../../shared/rpc/contract.ts';
import { toQuery } from '../../common/observation-query.ts';
import type { ObservationStore } from '../../common/ports.ts';
import type { ReadBarrier } from '../../common/read-barrier.ts';
import { toDeletedEvent, toReportedEvent } from '../observation-events.ts';
import type { IngestAdmission } from './ingest-admission.ts';
import { type EncodedObservationLogReply, ObservationLogWriter } from './observation-log-encoding.ts';
import { encodeReportedEvent, REPORTED_EVENT_VERSION } from './report-event.ts';
import { isParsedReport, type ReportRequest } from './report-request.ts';

export interface DbManagerDeps {
  readonly producer: Pick<EventProducer, 'publish' | 'publishEncoded' | 'schemaHeader'>;
  readonly store: Pick<ObservationStore, 'scan'>;
  /** experiment.observations (after KAFKA_TOPIC_PREFIX): where reports and deletions go. */
  readonly topic: string;
  readonly barrier: ReadBarrier;
  /** Holds reports back while the persistence consumer is behind (none: never). */
  readonly admission?: Pick<IngestAdmission, 'admit'>;
  readonly clock: Clock;
}

export interface DbManagerHandlers {
  readonly ReportObservationLog: UnaryHandler<
    ReportRequest<ReportObservationLogRequest__Output>,
    ReportObservationLogReply
  >;
  readonly GetObservationLog: UnaryHandler<
    GetObservationLogRequest__Output,
    GetObservationLogReply | EncodedObservationLogReply
  >;
  readonly DeleteObservationLog: UnaryHandler<DeleteObservationLogRequest__Output, DeleteObservationLogReply>;
}

/** api.v1.beta1.DBManager: writes go to Kafka (answered once acknowledged), reads behind the barrier. */
export function createDbManagerHandlers(deps: DbManagerDeps): DbManagerHandlers {
  const { producer, store, topic, barrier, admission, clock } = deps;
  const header = producer.schemaHeader('ObservationLogReported', REPORTED_EVENT_VERSION);
  return {
    async ReportObservationLog(received, { correlationId }) {
      const caughtUp = admission?.admit();
      if (caughtUp) await caughtUp;
      const ids = { eventId: randomUUID(), now: clock.now() };
      let request: ReportObservationLogRequest__Output;
      if (isParsedReport(received)) {
        // Most reports go from their bytes to the event's bytes (report-event.ts).
        const event = encodeReportedEvent(received, ids, header);
        if (event !== undefined) {
          await producer.publishEncoded(topic, [
            {
              eventType: 'ObservationLogReported',
              key: event.trialName,
              value: event.value,
              eventId: ids.eventId,
              ...(correlationId ? { correlationId } : {}),
            },
          ]);
          return {};
        }
        request = received.generic(received.bytes) as ReportObservationLogRequest__Output;
      } else request = received;
      const payload = toReportedEvent(request, ids);
      await producer.publish(topic, [
        {
          eventType: 'ObservationLogReported',
          key: request.trial_name,
          payload,
          ...(correlationId ? { correlationId } : {}),
        },
      ]);
      return {};
    },
    async GetObservationLog(request) {
      const query = toQuery(request);
      await barrier.waitFor(request.trial_name);
      // Written as the store reads them; always a (possibly empty) observation_log: Katib's Go
      // callers dereference it.
      const reply = new ObservationLogWriter();
      await store.scan(query, (time, metricName, value) => reply.add(toKatibTime(time), metricName, value));
      return reply.finish();
    },
    async DeleteObservationLog(request, { correlationId }) {
      const payload = toDeletedEvent(request.trial_name, { eventId: randomUUID(), now: clock.now() });
      await producer.publish(topic, [
        {
          eventType: 'ObservationLogDeleted',
          key: request.trial_name,
          payload,
          ...(correlationId ? { correlationId } : {}),
        },
      ]);
      return {};
    },
  };
}
