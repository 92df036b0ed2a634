import { kafkaSettings } from '../../shared/bus/kafka-settings.ts';
import { LOG_LEVELS } from '../../shared/logger.ts';
import { documented, oneOf } from '../../shared/settings.ts';

/** Settings of the replay CLI; --brokers overrides KAFKA_BROKERS. */
export const replaySettings = documented(
  {
    ...kafkaSettings,
    logLevel: oneOf('LOG_LEVEL', LOG_LEVELS, 'warn'),
  },
  { logLevel: 'logs go to stderr (stdout holds only records)' },
);
