import { kafkaSettings } from '../../shared/bus/kafka-settings.ts';
import { LOG_LEVELS } from '../../shared/logger.ts';
import { documented, type Env, oneOf, readSettings, str } from '../../shared/settings.ts';

/** Settings of the kvupgrade CLI (everything about a cluster is in its cluster file). */
export const kvupgradeSettingsSpec = documented(
  {
    ...kafkaSettings,
    logLevel: oneOf('LOG_LEVEL', LOG_LEVELS, 'error'),
    // npm run starts scripts in the project's root and names the folder the user ran it from in INIT_CWD.
    invokedFrom: str(
      'INIT_CWD',
      '',
      'the folder a relative --cluster is taken from (set by npm run; default: the current folder)',
    ),
  },
  {
    logLevel: 'logs go to stderr, progress to stdout',
    invokedFrom:
      "set by `npm run`: the folder a relative `--cluster` is taken from (`npm run` starts scripts in the project's root); empty: the current folder",
  },
);

export const readKvupgradeSettings = (env: Env) => readSettings(kvupgradeSettingsSpec, env);
