// The web side's wiring, called from main.ts when EXPERIMENT_HTTP is on: the live streams, then the
// HTTP listener with the gRPC/JSON gateway, the read endpoints and the page.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Registry } from 'prom-client';
import type { Bus } from '../../../../shared/bus/index.ts';
import { createGrpcJsonGateway } from '../../../../shared/grpc-http.ts';
import type { Lifecycle } from '../../../../shared/lifecycle.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { RpcService } from '../../../../shared/rpc/contract.ts';
import type { ExperimentTopics } from '../../common/bus-names.ts';
import type { ObservationStore } from '../../common/ports.ts';
import type { ObjectiveAnalysis, ReadModel } from '../../common/read-model.ts';
import type { ExperimentStatuses, ExperimentSubmitter } from '../../common/submissions.ts';
import { startHttpApi, webAssets } from './http-api.ts';
import { createLiveHub } from './live-hub.ts';
import { startLiveStream } from './live-stream.ts';

/** Starts the live streams and the HTTP listener; resolves with the page's address. */
export async function startWeb(deps: {
  host: string;
  port: number;
  maxBodyBytes: number;
  sseMaxBufferedBytes: number;
  bus: Bus;
  topics: ExperimentTopics;
  store: Pick<ObservationStore, 'query' | 'curves'>;
  readModel: ReadModel;
  analysis: ObjectiveAnalysis;
  submissions: ExperimentSubmitter;
  statuses: ExperimentStatuses;
  services: readonly RpcService[];
  lifecycle: Lifecycle;
  logger: Logger;
  registry: Registry;
}): Promise<string> {
  const { lifecycle } = deps;
  const logger = deps.logger.child({ component: 'http' });
  const hub = createLiveHub({
    maxBufferedBytes: deps.sseMaxBufferedBytes,
    logger,
    registry: deps.registry,
  });
  const live = startLiveStream({ bus: deps.bus, topics: deps.topics, hub, logger });
  // Streams opened right after start see everything published from then on; a Kafka hiccup only
  // delays live updates (the readers start again by themselves), never the service.
  await Promise.race([live.started, sleep(10_000)]);
  const echartsDir = dirname(createRequire(import.meta.url).resolve('echarts'));
  const api = await startHttpApi({
    host: deps.host,
    port: deps.port,
    gateway: createGrpcJsonGateway({
      protoFiles: ['api/v1beta1/api.proto'],
      services: deps.services,
      logger,
    }),
    readModel: deps.readModel,
    analysis: deps.analysis,
    store: deps.store,
    submissions: deps.submissions,
    statuses: deps.statuses,
    hub,
    logger,
    maxBodyBytes: deps.maxBodyBytes,
    assets: webAssets(join(import.meta.dirname, '..', 'page'), echartsDir),
  });
  lifecycle.onStop('http server', () => api.stop());
  // Registered last, so it stops first: the open streams end, then the listener closes at once.
  lifecycle.onStop('live streams', () => live.stop());
  const host = deps.host.includes(':') ? `[${deps.host}]` : deps.host;
  return `http://${host}:${api.port}/`;
}
