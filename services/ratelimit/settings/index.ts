// Every setting of the rate limit service: read once, checked all at once (the rules that tie
// several together included), frozen.
import { type Env, readSettings, SettingsError, type SettingsOf } from '../../../shared/settings.ts';
import { readMogrifiers } from './mogrifiers.ts';
import { ratelimitSettingsSpec } from './spec.ts';
import { readXdsTlsTracingSettings } from './xds-tls-tracing.ts';

export type RatelimitSettings = ReturnType<typeof readRatelimitSettings>;

/** Reads every setting, then the rules that tie several together; all problems in one SettingsError. */
export function readRatelimitSettings(env: Env) {
  // TLS, xDS and tracing (./xds-tls-tracing.ts): their problems join the others'.
  const extensions = readXdsTlsTracingSettings(env, env.CONFIG_TYPE?.trim().toUpperCase());
  let settings: SettingsOf<typeof ratelimitSettingsSpec>;
  try {
    settings = readSettings(ratelimitSettingsSpec, env);
  } catch (error) {
    if (error instanceof SettingsError) throw new SettingsError([...error.problems, ...extensions.problems]);
    throw error;
  }
  const problems: string[] = [...extensions.problems];
  const sentinel = (variable: string, type: string, url: string): void => {
    if (type === 'sentinel' && url.split(',').filter((p) => p.trim() !== '').length < 2)
      problems.push(
        `${variable}=${JSON.stringify(url)} is not allowed: Expected master name and a list of urls for the sentinels, in the format: <redis master name>,<sentinel1>,...,<sentineln>`,
      );
  };
  sentinel('REDIS_URL', settings.redisType, settings.redisUrl);
  if (settings.redisPerSecond)
    sentinel('REDIS_PERSECOND_URL', settings.redisPerSecondType, settings.redisPerSecondUrl);
  if (settings.backendType === 'memcache') {
    if (settings.memcacheHostPort !== '' && settings.memcacheSrv !== '')
      problems.push(
        'MEMCACHE_HOST_PORT and MEMCACHE_SRV are both set: Both MEMCACHE_HOST_PORT and MEMCACHE_SRV are set',
      );
    if (settings.memcacheHostPort === '' && settings.memcacheSrv === '')
      problems.push('BACKEND_TYPE=memcache needs MEMCACHE_HOST_PORT or MEMCACHE_SRV');
  }
  if (settings.configType === 'KAFKA' && settings.configKafkaKey === '')
    problems.push('CONFIG_KAFKA_KEY must not be empty when CONFIG_TYPE=KAFKA');
  const dogStatsdMogrifiers = readMogrifiers(env, settings.useDogStatsdMogrifiers, problems);
  if (problems.length > 0) throw new SettingsError(problems);
  return Object.freeze({ ...settings, ...extensions.values!, dogStatsdMogrifiers });
}
