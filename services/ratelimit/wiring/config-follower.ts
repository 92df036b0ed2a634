// CONFIG_TYPE=KAFKA: the ratelimit.config follower kept running. One that stops on an error is
// started again with backoff (shared/supervisor.ts); while it does not run or Kafka does not answer,
// the gRPC health service `ratelimit.config` says NOT_SERVING and component_running{component=
// "config follower"} reads 0. Decisions go on with the configuration in force: the instance as a
// whole ('') and `ratelimit` stay SERVING, since a lost configuration feed is no reason to stop
// deciding. When it cannot be started again within CONFIG_KAFKA_GIVE_UP the process exits 1.
import type { Registry } from 'prom-client';
import { componentChecks, watchDependencies } from '../../../shared/health-checks.ts';
import type { Lifecycle } from '../../../shared/lifecycle.ts';
import type { Logger } from '../../../shared/logger.ts';
import { createSupervisor } from '../../../shared/supervisor.ts';
import type { ConfigLoader } from '../adapters/config/config-loader.ts';
import type { ConfigSource } from '../ports.ts';
import type { ConfigKafka } from './config-kafka.ts';
import type { HealthSetter } from './messages.ts';

export const CONFIG_HEALTH_SERVICE = 'ratelimit.config';
const FOLLOWER = 'config follower';

export function createSupervisedFollower(options: {
  kafka: ConfigKafka;
  loader: ConfigLoader;
  logger: Logger;
  lifecycle: Lifecycle;
  registry: Registry | undefined;
  health: HealthSetter;
  /** CONFIG_KAFKA_GIVE_UP: how long the follower may stay down before the process gives up. */
  giveUpAfterMs: number;
  /** How the process ends once the instance stopped after giving up (tests replace it). */
  exit?: (code: number) => void;
}): ConfigSource {
  const { kafka, loader, logger, lifecycle } = options;
  const supervisor = createSupervisor({
    logger,
    registry: options.registry,
    giveUpAfterMs: options.giveUpAfterMs,
    onGiveUp(name, reason) {
      logger.fatal(
        { component: name, reason },
        'the configuration follower could not be started again; exiting',
      );
      const exit = options.exit ?? ((code: number) => process.exit(code));
      void lifecycle.stop(`${name} could not be restarted`).then(() => exit(1));
    },
  });
  let lastVersion: string | undefined;
  let stopWatching: (() => void) | undefined;
  return {
    async start(onConfig) {
      await supervisor.supervise(FOLLOWER, async () => {
        const source = kafka.createSource(loader, () => lastVersion);
        await source.start((loaded) => {
          lastVersion = loaded.config.version;
          onConfig(loaded);
        });
        return { ended: source.ended(), stop: () => source.stop() };
      });
      stopWatching = await watchDependencies({
        health: options.health,
        services: [CONFIG_HEALTH_SERVICE],
        checks: [
          ...componentChecks(supervisor, [{ name: FOLLOWER, services: [CONFIG_HEALTH_SERVICE] }]),
          { name: 'kafka', services: [CONFIG_HEALTH_SERVICE], check: () => kafka.ping() },
        ],
        intervalMs: 2_000,
        timeoutMs: 1_500,
        logger,
        changes: [(listener) => supervisor.onChange(listener), (listener) => kafka.onLinkChange(listener)],
      });
    },
    async stop() {
      stopWatching?.();
      await supervisor.stop();
    },
  };
}
