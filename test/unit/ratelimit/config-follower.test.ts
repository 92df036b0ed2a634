// The supervised ratelimit.config follower with a follower that fails on demand: started again with
// backoff, the health service ratelimit.config NOT_SERVING meanwhile and component_running 0, the
// version it handed over not applied again, and the instance stopped with exit 1 when it cannot be
// started again in time.
import { Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import type { ConfigLoader } from '../../../services/ratelimit/adapters/config/config-loader.ts';
import type { KafkaConfigSource } from '../../../services/ratelimit/adapters/config/kafka-source.ts';
import { loadConfig } from '../../../services/ratelimit/config/index.ts';
import type { SourcedConfig } from '../../../services/ratelimit/ports.ts';
import { createSupervisedFollower } from '../../../services/ratelimit/wiring/config-follower.ts';
import type { ConfigKafka } from '../../../services/ratelimit/wiring/config-kafka.ts';
import type { ServingStatus } from '../../../shared/grpc.ts';
import { createLifecycle } from '../../../shared/lifecycle.ts';
import { silentLogger } from '../../../shared/logger.ts';
import { waitFor } from '../../helpers/wait-for.ts';

const loaded = (version: string): SourcedConfig => {
  const config = loadConfig([{ name: `${version}.yaml`, text: `domain: ${version}\n` }], {
    mergeDomainConfig: false,
  });
  return { config, source: 'kafka:test', mergeDomainConfig: false };
};

/** A ConfigKafka whose followers hand over `published` (unless it is the last version) and fail when told. */
function fakeKafka(options: { failStarts?: () => boolean }) {
  const followers: Array<{ fail(error: Error): void; lastVersion: string | undefined }> = [];
  let published = loaded('v1');
  const kafka: ConfigKafka = {
    startPublisher: () => {
      throw new Error('not used');
    },
    createSource(_loader: ConfigLoader, lastVersion: () => string | undefined): KafkaConfigSource {
      const ended = Promise.withResolvers<void>();
      ended.promise.catch(() => undefined);
      const follower = { fail: (error: Error) => ended.reject(error), lastVersion: lastVersion() };
      return {
        async start(onConfig) {
          if (options.failStarts?.()) throw new Error('kafka: no broker answers');
          followers.push(follower);
          if (published.config.version !== lastVersion()) onConfig(published);
        },
        ended: () => ended.promise,
        stop: async () => ended.resolve(),
      };
    },
    ping: async () => {},
    onLinkChange: () => () => {},
  };
  return { kafka, followers, publish: (next: SourcedConfig) => (published = next) };
}

const setup = (kafka: ConfigKafka, giveUpAfterMs = 60_000) => {
  const statuses: Array<[string, ServingStatus]> = [];
  const registry = new Registry();
  const lifecycle = createLifecycle({ logger: silentLogger, deadlineMs: 1_000 });
  const exit = vi.fn();
  const follower = createSupervisedFollower({
    kafka,
    loader: {} as ConfigLoader,
    logger: silentLogger,
    lifecycle,
    registry,
    health: { setStatus: (service, status) => statuses.push([service, status]) },
    giveUpAfterMs,
    exit,
  });
  lifecycle.onStop('follower', () => follower.stop());
  return { follower, statuses, registry, lifecycle, exit };
};

describe('the supervised configuration follower', () => {
  it('starts a follower that failed again, NOT_SERVING until it runs, without applying its version twice', async () => {
    const { kafka, followers, publish } = fakeKafka({});
    const { follower, statuses, registry, lifecycle } = setup(kafka);
    const applied: string[] = [];
    await follower.start((config) => applied.push(config.config.version));
    expect(statuses.at(-1)).toEqual(['ratelimit.config', 'SERVING']);

    followers[0]!.fail(new Error('The coordinator is not aware of this member'));
    await waitFor('the health to say NOT_SERVING', () => statuses.at(-1)?.[1] === 'NOT_SERVING');
    expect(statuses.every(([service]) => service === 'ratelimit.config')).toBe(true);
    await waitFor('a second follower', () => followers.length === 2);
    await waitFor('the health to say SERVING again', () => statuses.at(-1)?.[1] === 'SERVING');
    // The second follower read the same version from the topic's beginning: not applied again.
    expect(followers[1]!.lastVersion).toBe(applied[0]);
    expect(applied).toHaveLength(1);
    expect(await registry.metrics()).toMatch(/component_restarts_total\{component="config follower"\} 1/);

    publish(loaded('v2'));
    followers[1]!.fail(new Error('lost'));
    await waitFor('the next version applied by a third follower', () => applied.length === 2);
    await lifecycle.stop('test over');
  });

  it('stops the instance and exits 1 when the follower cannot be started again in time', async () => {
    let failing = false;
    const { kafka, followers } = fakeKafka({ failStarts: () => failing });
    const { follower, registry, exit } = setup(kafka, 300);
    await follower.start(() => {});
    failing = true;
    followers[0]!.fail(new Error('lost'));
    await waitFor('the exit', () => exit.mock.calls.length > 0, { timeoutMs: 5_000 });
    expect(exit).toHaveBeenCalledWith(1);
    expect(await registry.metrics()).toMatch(/component_running\{component="config follower"\} 0/);
  });
});
