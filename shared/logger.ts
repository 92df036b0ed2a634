import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface LoggerOptions {
  readonly name: string;
  readonly level: LogLevel;
}

/** JSON lines on stdout (or the given stream); components take `logger.child({ component })`. */
export function createLogger(options: LoggerOptions, destination?: DestinationStream): Logger {
  return pino(
    {
      name: options.name,
      level: options.level,
      base: { service: options.name },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? pino.destination({ fd: 1, sync: false }),
  );
}

/** A logger that drops everything, for tests and tools that must keep stdout clean. */
export const silentLogger: Logger = pino({ level: 'silent' });
