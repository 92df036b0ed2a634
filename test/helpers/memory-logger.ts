import { createLogger, type Logger, type LogLevel } from '../../shared/logger.ts';

export interface LogLine {
  readonly level: string;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** A logger in the production format whose parsed JSON lines land in an array. */
export function memoryLogger<Line = LogLine>(
  level: LogLevel = 'info',
): { logger: Logger; lines: Line[]; raw: string[] } {
  const lines: Line[] = [];
  const raw: string[] = [];
  const logger = createLogger(
    { name: 'test', level },
    {
      write: (line: string) => {
        raw.push(line);
        lines.push(JSON.parse(line) as Line);
      },
    },
  );
  return { logger, lines, raw };
}

/** Keys written more than once at the top level of a JSON line (JSON.parse keeps only the last). */
export function repeatedKeys(line: string): string[] {
  const seen = new Set<string>();
  const repeated: string[] = [];
  let depth = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') {
      let end = i + 1;
      while (line[end] !== '"') end += line[end] === '\\' ? 2 : 1;
      const text = line.slice(i + 1, end);
      if (depth === 1 && line[end + 1] === ':') {
        if (seen.has(text)) repeated.push(text);
        seen.add(text);
      }
      i = end;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
  }
  return repeated;
}
