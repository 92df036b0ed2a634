import { kafkaSettings } from '../../shared/bus/kafka-settings.ts';
import { LOG_LEVELS } from '../../shared/logger.ts';
import { type Env, oneOf, readSettings } from '../../shared/settings.ts';

/** Settings of the kvupgrade CLI (everything about a cluster is in its cluster file). */
export const kvupgradeSettingsSpec = {
  ...kafkaSettings,
  logLevel: oneOf('LOG_LEVEL', LOG_LEVELS, 'error'),
};

export const readKvupgradeSettings = (env: Env) => readSettings(kvupgradeSettingsSpec, env);
