// Health as envoyproxy/ratelimit tracks it (server/health.go): healthy while every component is.
// `redis` follows the store's connection, `sigterm` turns false on shutdown, `config` counts only
// with HEALTHY_WITH_AT_LEAST_ONE_CONFIG_LOADED. Drives /healthcheck and grpc.health.v1 `ratelimit`.
import type { ServingStatus } from '../../../../shared/grpc.ts';
import type { Logger } from '../../../../shared/logger.ts';

export type HealthComponent = 'redis' | 'sigterm' | 'config';

export interface HealthState {
  set(component: HealthComponent, ok: boolean): void;
  healthy(): boolean;
  /** Why it is unhealthy, for logs and /healthcheck readers. */
  failing(): HealthComponent[];
}

export const GRPC_HEALTH_SERVICE = 'ratelimit';

export function createHealthState(options: {
  components: readonly HealthComponent[];
  grpcHealth?: { setStatus(service: string, status: ServingStatus): void };
  logger: Logger;
}): HealthState {
  const ok = new Map<HealthComponent, boolean>(options.components.map((c) => [c, c === 'sigterm']));
  const publish = (): void => {
    const healthy = [...ok.values()].every(Boolean);
    options.grpcHealth?.setStatus(GRPC_HEALTH_SERVICE, healthy ? 'SERVING' : 'NOT_SERVING');
  };
  publish();
  return {
    set(component, value) {
      if (!ok.has(component) || ok.get(component) === value) return;
      ok.set(component, value);
      options.logger.info({ component, healthy: value }, 'health component changed');
      publish();
    },
    healthy: () => [...ok.values()].every(Boolean),
    failing: () => [...ok].filter(([, v]) => !v).map(([c]) => c),
  };
}
