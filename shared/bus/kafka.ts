import { Kafka, type logCreator, logLevel } from 'kafkajs';
import type { Logger } from '../logger.ts';
import { hostPorts, str } from '../settings.ts';

/** Settings every Kafka client shares; services spread these into their own spec. */
export const kafkaSettings = {
  kafkaBrokers: hostPorts('KAFKA_BROKERS', ['127.0.0.1:9092']),
  kafkaClientId: str('KAFKA_CLIENT_ID', 'backbone'),
};

const LEVELS: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

function pinoLogCreator(logger: Logger): logCreator {
  return () =>
    ({ level, log }) => {
      const { message, ...extra } = log;
      // kafkajs logs every error answer of the broker at ERROR, also the retriable ones it then
      // retries (a fresh broker's "group coordinator is not available"); a real failure reaches
      // the caller as an exception, so these are only debug detail.
      const retriedAnswer = level === logLevel.ERROR && message.startsWith('Response ');
      logger[retriedAnswer ? 'debug' : (LEVELS[level] ?? 'info')]({ kafka: extra }, message);
    };
}

/** kafkajs stays behind this module, so the client library can be swapped in one place. */
export function createKafka(options: {
  brokers: readonly string[];
  clientId: string;
  logger: Logger;
}): Kafka {
  return new Kafka({
    clientId: options.clientId,
    brokers: [...options.brokers],
    // kafkajs logs a rebalance as an ERROR; WARN keeps real trouble visible without the noise.
    logLevel: logLevel.WARN,
    logCreator: pinoLogCreator(options.logger.child({ component: 'kafka' })),
    retry: { initialRetryTime: 200, retries: 8 },
  });
}
