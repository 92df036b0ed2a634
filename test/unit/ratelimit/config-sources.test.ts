// The configuration sources behind ConfigSource: an xDS response is converted and loaded once in
// the process that receives it (a NACKed one too, and nothing of it is handed on), and what is
// handed to the decision units is the loaded configuration as data, never loaded again.
import { deserialize, serialize } from 'node:v8';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConfigLoader } from '../../../services/ratelimit/adapters/config/config-loader.ts';
import { createXdsConfigSource } from '../../../services/ratelimit/adapters/config/xds-source.ts';
import {
  type ConfigData,
  type ConfigFile,
  configFromData,
  type LoadOptions,
  loadConfig,
} from '../../../services/ratelimit/config/index.ts';
import { createStatsStore, SERVICE_STATS } from '../../../services/ratelimit/domain/stats.ts';
import type { ConfigSource, SourcedConfig } from '../../../services/ratelimit/ports.ts';
import { readRatelimitSettings } from '../../../services/ratelimit/settings/index.ts';
import { startConfigSource } from '../../../services/ratelimit/wiring/config-source.ts';
import { createLifecycle } from '../../../shared/lifecycle.ts';
import { silentLogger } from '../../../shared/logger.ts';
import { type AdsServer, type RlsConfigResource, startAdsServer } from '../../helpers/ads-server.ts';
import { waitFor } from '../../helpers/wait-for.ts';
import { loadText } from './config/helpers.ts';

const resource = (name: string, perMinute: number): RlsConfigResource => ({
  name,
  domain: name,
  descriptors: [{ key: 'user', rate_limit: { unit: 'MINUTE', requests_per_unit: perMinute } }],
});
const broken: RlsConfigResource = {
  name: 'broken',
  domain: 'broken',
  descriptors: [{ key: 'k', rate_limit: { unit: 'UNKNOWN', requests_per_unit: 5 } }],
};

/** loadConfig, counting its calls. */
const countingLoad = () => {
  const calls: string[][] = [];
  const load = (files: readonly ConfigFile[], options: LoadOptions) => {
    calls.push(files.map((file) => file.name));
    return loadConfig(files, options);
  };
  return { calls, load };
};

const limitOf = (data: ConfigData, domain: string): number | undefined => {
  const found = configFromData(data).getLimit(domain, { entries: [{ key: 'user', value: 'u' }] });
  return found.kind === 'limit' ? found.rule.requestsPerUnit : undefined;
};

describe('the xDS configuration source', () => {
  let ads: AdsServer;
  beforeAll(async () => {
    ads = await startAdsServer();
  });
  afterAll(() => ads?.stop());

  const ackOf = (version: string) =>
    waitFor(`the ACK of ${version}`, () => {
      const sent = ads.sent.find((s) => s.version === version);
      return ads.requests.find((r) => r.responseNonce === sent?.nonce && r.kind !== 'stale');
    });

  it('loads each response once: an applied one goes on, a NACKed one is not handed on', async () => {
    const { calls, load } = countingLoad();
    const stats = createStatsStore();
    const received: SourcedConfig[] = [];
    const source: ConfigSource = createXdsConfigSource({
      client: {
        serverUrl: ads.address,
        nodeId: 'count-loads',
        nodeMetadata: {},
        additionalHeaders: {},
        connectRetryIntervalMs: 100,
        backoff: { initialMs: 100, maxMs: 200, factor: 2, jitter: false },
        maxMessageBytes: 0,
        logger: silentLogger,
      },
      mergeDomainConfig: false,
      loader: createConfigLoader({ stats, logger: silentLogger, loadFiles: load }),
    });
    await source.start((loaded) => received.push(loaded));
    try {
      ads.setSnapshot('v1', [resource('first', 1), resource('second', 2)]);
      expect((await ackOf('v1')).kind).toBe('ack');
      expect(calls).toEqual([['first', 'second']]);
      expect(received.map((r) => [r.source, r.config.domains])).toEqual([['xds', ['first', 'second']]]);

      ads.setSnapshot('v2', [resource('first', 3)]);
      expect((await ackOf('v2')).kind).toBe('ack');
      ads.setSnapshot('v3', [resource('first', 4), broken]);
      expect((await ackOf('v3')).kind).toBe('nack');
      expect(calls).toEqual([['first', 'second'], ['first'], ['first', 'broken']]);
      expect(received).toHaveLength(2);
      // As the reference counts them: a NACKed response is not a load error.
      expect(stats.counter(SERVICE_STATS.configLoadSuccess).value).toBe(2);
      expect(stats.counter(SERVICE_STATS.configLoadError).value).toBe(0);
    } finally {
      await source.stop();
    }
  });

  it('hands one load per response to every decision unit as data (the wiring of the primary)', async () => {
    const { calls, load } = countingLoad();
    const settings = readRatelimitSettings({
      CONFIG_TYPE: 'GRPC_XDS_SOTW',
      CONFIG_GRPC_XDS_SERVER_URL: ads.address,
      CONFIG_GRPC_XDS_NODE_ID: 'count-handoff',
      CONFIG_KAFKA_PUBLISH: 'false',
    });
    const lifecycle = createLifecycle({ logger: silentLogger, deadlineMs: 5_000 });
    // Three decision units, each given what structured clone carries (as node:cluster's advanced
    // serialization and worker_threads do), each keeping its own copy.
    const units: ConfigData[][] = [[], [], []];
    await startConfigSource({
      settings,
      logger: silentLogger,
      lifecycle,
      stats: createStatsStore(),
      loadFiles: load,
      onConfig: ({ config }) => {
        for (const unit of units) unit.push(deserialize(serialize(config.data)) as ConfigData);
      },
    });
    try {
      ads.setSnapshot('h1', [resource('handed', 7)]);
      await waitFor('every unit to hold h1', () => units.every((unit) => unit.length === 1));
      ads.setSnapshot('h2', [resource('handed', 8)]);
      await waitFor('every unit to hold h2', () => units.every((unit) => unit.length === 2));
      expect(calls).toHaveLength(2);
      for (const unit of units) expect(unit.map((data) => limitOf(data, 'handed'))).toEqual([7, 8]);
    } finally {
      await lifecycle.stop('test over');
    }
  });
});

describe('a configuration as data', () => {
  it('decides, dumps and names its version after structured clone as the loaded one does', () => {
    const loaded = loadText(
      `domain: a
descriptors:
  - key: k
    value: "v*"
    share_threshold: true
    rate_limit: { unit: hour, requests_per_unit: 5 }
    metadata: { team: edge }
    descriptors:
      - key: inner
        rate_limit: { unit: second, requests_per_unit: 1 }
  - key: open
`,
      'config.a.yaml',
    );
    const copy = configFromData(deserialize(serialize(loaded.data)) as ConfigData);
    expect([copy.version, copy.domains, copy.files, copy.dump()]).toEqual([
      loaded.version,
      loaded.domains,
      loaded.files,
      loaded.dump(),
    ]);
    for (const entries of [
      [{ key: 'k', value: 'vx' }],
      [
        { key: 'k', value: 'vy' },
        { key: 'inner', value: 'i' },
      ],
      [{ key: 'open', value: 'o' }],
      [{ key: 'none', value: 'n' }],
    ])
      expect(copy.getLimit('a', { entries })).toEqual(loaded.getLimit('a', { entries }));
    expect(copy.getLimit('b', { entries: [] })).toEqual({ kind: 'domain-not-found' });
  });
});
