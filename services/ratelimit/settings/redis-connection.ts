// One Redis store's connection settings out of the REDIS_* (or REDIS_PERSECOND_*) variables.
import type { RatelimitSettings } from './index.ts';

/** One Redis connection's settings: the main store's, or the per-second store's. */
export interface RedisConnectionSettings {
  readonly name: 'redis' | 'redis_per_second';
  readonly socketType: 'unix' | 'tcp';
  readonly type: 'single' | 'sentinel' | 'cluster';
  readonly url: string;
  readonly poolSize: number;
  readonly auth: string;
  readonly sentinelAuth: string;
  readonly tls: boolean;
  readonly pipelineWindowMs: number;
  readonly pipelineLimit: number;
  readonly timeoutMs: number;
}

export function redisConnection(settings: RatelimitSettings, perSecond: boolean): RedisConnectionSettings {
  return perSecond
    ? {
        name: 'redis_per_second',
        socketType: settings.redisPerSecondSocketType,
        type: settings.redisPerSecondType,
        url: settings.redisPerSecondUrl,
        poolSize: settings.redisPerSecondPoolSize,
        auth: settings.redisPerSecondAuth,
        sentinelAuth: settings.redisPerSecondSentinelAuth,
        tls: settings.redisPerSecondTls,
        pipelineWindowMs: settings.redisPerSecondPipelineWindowMs,
        pipelineLimit: settings.redisPerSecondPipelineLimit,
        timeoutMs: settings.redisPerSecondTimeoutMs,
      }
    : {
        name: 'redis',
        socketType: settings.redisSocketType,
        type: settings.redisType,
        url: settings.redisUrl,
        poolSize: settings.redisPoolSize,
        auth: settings.redisAuth,
        sentinelAuth: settings.redisSentinelAuth,
        tls: settings.redisTls,
        pipelineWindowMs: settings.redisPipelineWindowMs,
        pipelineLimit: settings.redisPipelineLimit,
        timeoutMs: settings.redisTimeoutMs,
      };
}
