import { createLogger, type Logger, type LogLevel } from '../../shared/logger.ts';

export interface LogLine {
  readonly level: string;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** A logger in the production format whose parsed JSON lines land in an array. */
export function memoryLogger<Line = LogLine>(level: LogLevel = 'info'): { logger: Logger; lines: Line[] } {
  const lines: Line[] = [];
  const logger = createLogger(
    { name: 'test', level },
    { write: (line: string) => void lines.push(JSON.parse(line) as Line) },
  );
  return { logger, lines };
}
