// Logs as envoyproxy/ratelimit writes them (logrus): LOG_FORMAT=text gives
// `time="..." level=info msg="..." key=value`, LOG_FORMAT=json gives objects with `@timestamp`,
// `@message` and `level`. pino underneath, so components take `logger.child({ component })`.
import pino, { type DestinationStream, type Logger } from 'pino';

export type LogFormat = 'text' | 'json';

/** logrus level names from pino's; `panic` and `fatal` both end the process in Go. */
const PINO_LEVEL: Readonly<Record<string, pino.LevelWithSilent>> = {
  trace: 'trace',
  debug: 'debug',
  info: 'info',
  warn: 'warn',
  error: 'error',
  fatal: 'fatal',
  panic: 'fatal',
};

const LOGRUS_NAME: Readonly<Record<string, string>> = { warn: 'warning' };

const quoteIfNeeded = (value: string): string => (/^[\w./:@-]+$/.test(value) ? value : JSON.stringify(value));

const isError = (value: unknown): value is { message: string } =>
  typeof value === 'object' &&
  value !== null &&
  'stack' in value &&
  typeof (value as { message?: unknown }).message === 'string';

/** One JSON line from pino as a logrus text line. */
export function toTextLine(json: string): string {
  const record = JSON.parse(json) as Record<string, unknown>;
  const { time, level, msg, ...fields } = record;
  let line = `time=${JSON.stringify(String(time))} level=${LOGRUS_NAME[String(level)] ?? String(level)} msg=${JSON.stringify(String(msg ?? ''))}`;
  for (const [key, value] of Object.entries(fields)) {
    const text = typeof value === 'string' ? value : isError(value) ? value.message : JSON.stringify(value);
    line += ` ${key}=${quoteIfNeeded(text ?? '')}`;
  }
  return `${line}\n`;
}

function textDestination(out: DestinationStream): DestinationStream {
  return {
    write(chunk: string) {
      for (const json of chunk.split('\n')) if (json !== '') out.write(toTextLine(json));
    },
  };
}

export function createRatelimitLogger(
  options: { level: string; format: LogFormat },
  destination: DestinationStream = pino.destination({ fd: 1, sync: false }),
): Logger {
  const level = PINO_LEVEL[options.level] ?? 'warn';
  const common = {
    level,
    base: undefined,
    formatters: { level: (label: string) => ({ level: label }) },
  };
  if (options.format === 'json') {
    return pino(
      { ...common, messageKey: '@message', timestamp: () => `,"@timestamp":"${new Date().toISOString()}"` },
      destination,
    );
  }
  return pino({ ...common, timestamp: pino.stdTimeFunctions.isoTime }, textDestination(destination));
}
