// Wiring of the experiment service's web side, called from main.ts: the read model (opened, and
// rebuilt from the topics when empty, before the persistence worker starts keeping it), then the
// HTTP listener with the gRPC/JSON gateway, read endpoints, live streams and the page.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Registry } from 'prom-client';
import { type Bus, type ConsumedEvent, readTopic, TOPICS } from '../../../../shared/bus/index.ts';
import type { GrpcServiceRegistration } from '../../../../shared/grpc.ts';
import { createGrpcJsonGateway } from '../../../../shared/grpc-http.ts';
import type { Lifecycle } from '../../../../shared/lifecycle.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { ObservationStore } from '../../common/ports.ts';
import {
  openPostgresReadModel,
  openSqliteReadModel,
  type ReadModelStore,
} from '../../dbmanager/adapters/read-model-store.ts';
import { type ReadModelChange, readModelChanges } from '../../dbmanager/read-model.ts';
import type { ExperimentSettings } from '../../settings.ts';
import { startHttpApi, webAssets } from './http-api.ts';
import { createLiveHub, startLiveStream } from './live-stream.ts';

/** Topics the read model is made of (observations count through the observation store itself). */
const READ_MODEL_TOPICS = [TOPICS.suggestions.name, TOPICS.earlyStoppingRules.name, TOPICS.trialStatus.name];

/**
 * Opens the read model in the observation store's database. When it is empty while the persistence
 * group has already committed some of its topics, replays those topics up to the commits (what the
 * worker will not read again); the worker then goes on from its commits.
 */
export async function openReadModel(deps: {
  settings: ExperimentSettings;
  bus: Bus;
  store: ObservationStore;
  logger: Logger;
  lifecycle: Lifecycle;
}): Promise<ReadModelStore> {
  const { settings, bus, logger } = deps;
  await deps.store.ping();
  const readModel =
    settings.store === 'sqlite'
      ? openSqliteReadModel({ file: settings.sqliteFile })
      : await openPostgresReadModel({ url: settings.postgresUrl, schema: settings.postgresSchema });
  deps.lifecycle.onStop('read model', () => readModel.close());
  if (settings.persistenceWorker && settings.readModelRebuild && (await readModel.isEmpty())) {
    const started = performance.now();
    // One topic after another, suggestions first: trials take their order from the requests.
    let events = 0;
    for (const topic of READ_MODEL_TOPICS)
      events += await rebuildFrom(bus, topic, settings.persistenceGroup, readModel);
    if (events > 0)
      logger.info(
        { events, ms: Math.round(performance.now() - started) },
        'read model rebuilt from the topics',
      );
  }
  return readModel;
}

async function rebuildFrom(
  bus: Bus,
  topic: string,
  group: string,
  readModel: ReadModelStore,
): Promise<number> {
  const committed = await bus.committedOffsets(group, topic);
  if (committed.size === 0) return 0;
  let pending: ReadModelChange[] = [];
  let events = 0;
  let flushing = Promise.resolve();
  const flush = (): Promise<void> => {
    const batch = pending;
    pending = [];
    flushing = flushing.then(() => readModel.apply(batch));
    return flushing;
  };
  // Katib's controller sends every trial of the experiment in each GetSuggestions request: the last
  // SuggestionsIssued of an experiment (key) says all that its earlier ones said about its trials.
  const lastSuggestions = new Map<string, ConsumedEvent>();
  const reader = await readTopic(bus, {
    topic,
    from: 'beginning',
    until: 'end',
    onEvent: async (event) => {
      if (event.offset >= (committed.get(event.partition) ?? 0n)) return;
      events++;
      if (event.eventType === 'SuggestionsIssued') {
        lastSuggestions.set(event.key ?? '', event);
        return;
      }
      pending.push(...readModelChanges(event));
      if (pending.length >= 1_000) await flush();
    },
  });
  await reader.done;
  for (const event of lastSuggestions.values()) {
    pending.push(...readModelChanges(event));
    if (pending.length >= 1_000) await flush();
  }
  await flush();
  return events;
}

/** Starts the HTTP listener (when EXPERIMENT_HTTP is on); resolves with the page's address. */
export async function startWeb(deps: {
  settings: ExperimentSettings;
  bus: Bus;
  store: ObservationStore;
  readModel: ReadModelStore;
  services: readonly GrpcServiceRegistration[];
  lifecycle: Lifecycle;
  logger: Logger;
  registry: Registry;
}): Promise<string | undefined> {
  const { settings, lifecycle } = deps;
  if (!settings.http) return undefined;
  const logger = deps.logger.child({ component: 'http' });
  const hub = createLiveHub({
    maxBufferedBytes: settings.sseMaxBufferedBytes,
    logger,
    registry: deps.registry,
  });
  const live = startLiveStream({ bus: deps.bus, hub, logger });
  // Streams opened right after start see everything published from then on; a Kafka hiccup only
  // delays live updates (the readers start again by themselves), never the service.
  await Promise.race([live.started, sleep(10_000)]);
  const echartsDir = dirname(createRequire(import.meta.url).resolve('echarts'));
  const api = await startHttpApi({
    host: settings.grpcHost,
    port: settings.httpPort,
    gateway: createGrpcJsonGateway({ protoFiles: ['api/v1beta1/api.proto'], services: deps.services }),
    readModel: deps.readModel,
    store: deps.store,
    hub,
    logger,
    maxBodyBytes: settings.grpcMaxMessageBytes,
    assets: webAssets(join(import.meta.dirname, '..', 'page'), echartsDir),
  });
  lifecycle.onStop('http server', () => api.stop());
  // Registered last, so it stops first: the open streams end, then the listener closes at once.
  lifecycle.onStop('live streams', () => live.stop());
  const host = settings.grpcHost.includes(':') ? `[${settings.grpcHost}]` : settings.grpcHost;
  return `http://${host}:${api.port}/`;
}
