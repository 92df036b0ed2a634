import { parseArgs } from 'node:util';
import { normalizeRfc3339 } from '../../shared/rfc3339.ts';

export const FORMATS = ['jsonl', 'csv'] as const;
export type Format = (typeof FORMATS)[number];

export interface ReplayOptions {
  readonly topic: string;
  /** Where every partition starts: its low watermark, or the first record at or after a time (epoch ms). */
  readonly start: { readonly kind: 'beginning' } | { readonly kind: 'time'; readonly ms: number };
  /** Records with a broker timestamp after this (epoch ms) are left out. */
  readonly untilMs: number | undefined;
  readonly key: string | undefined;
  readonly format: Format;
  readonly follow: boolean;
  /** Overrides KAFKA_BROKERS when given. */
  readonly brokers: readonly string[] | undefined;
}

export type ParsedArgs =
  | { readonly kind: 'run'; readonly options: ReplayOptions }
  | { readonly kind: 'help' }
  | { readonly kind: 'error'; readonly message: string };

export const USAGE = `usage: replay <topic> [--from-beginning | --from <time>] [--until <time>] [--key <key>]
              [--format jsonl|csv] [--follow] [--brokers host:port,...]

Prints the events of a Kafka topic to stdout, one per line, without committing offsets.

  <topic>               the topic to read
  --from-beginning      start at the first record of every partition (the default)
  --from <time>         start at the first record with a broker timestamp at or after <time>
  --until <time>        leave out records with a broker timestamp after <time>
  --key <key>           print only records whose key is <key>
  --format jsonl|csv    jsonl (default): one JSON object per line; csv: RFC 4180 with a header
  --follow              keep reading new records until SIGINT/SIGTERM
  --brokers <list>      comma-separated host:port pairs (default: KAFKA_BROKERS, else 127.0.0.1:9092)
  -h, --help            print this text

<time> is RFC 3339 with a zone, e.g. 2026-05-01T12:00:00Z or 2026-05-01T14:00:00.250+02:00.
Exit codes: 0 done, 1 failure, 2 bad arguments or settings, or the topic does not exist.`;

const OPTIONS = {
  'from-beginning': { type: 'boolean' },
  from: { type: 'string' },
  until: { type: 'string' },
  key: { type: 'string' },
  format: { type: 'string' },
  follow: { type: 'boolean' },
  brokers: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type OptionName = keyof typeof OPTIONS;

const ALLOWED = '--from-beginning, --from, --until, --key, --format, --follow, --brokers, --help';
const TIME_ALLOWED = 'an RFC 3339 date-time with Z or an offset, e.g. 2026-05-01T12:00:00Z';
const HOST_PORT = /^(.+):(\d+)$/;

/** An RFC 3339 date-time (full date, full time, a `Z` or an offset) as epoch ms; undefined otherwise. */
export function parseRfc3339(text: string): number | undefined {
  // RFC 3339 allows a lower-case t and z; the shared parser is as strict as Katib's Go server.
  const time = normalizeRfc3339(text.toUpperCase());
  return time.ok ? Date.parse(time.value) : undefined;
}

const fail = (message: string): ParsedArgs => ({ kind: 'error', message });

/** Pure: the arguments after `node main.ts`, as options or an error naming the bad argument. */
export function parseReplayArgs(args: readonly string[]): ParsedArgs {
  const { tokens } = parseArgs({
    args: [...args],
    options: OPTIONS,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const values: Partial<Record<OptionName, string | true>> = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') positionals.push(token.value);
    if (token.kind !== 'option') continue;
    if (!Object.hasOwn(OPTIONS, token.name)) {
      return fail(`unknown option ${token.rawName}; allowed options: ${ALLOWED}`);
    }
    const name = token.name as OptionName;
    if (OPTIONS[name].type === 'boolean') {
      if (token.value !== undefined) return fail(`${token.rawName} takes no value, got "${token.value}"`);
      values[name] = true;
    } else {
      // `--from --until x` would take "--until" as the time: a value starting with "-" must be inline.
      if (token.value === undefined || (!token.inlineValue && token.value.startsWith('-'))) {
        return fail(`${token.rawName} needs a value`);
      }
      values[name] = token.value;
    }
  }
  if (values.help) return { kind: 'help' };

  const [topic, ...extra] = positionals;
  if (topic === undefined || topic === '')
    return fail('missing topic: give the topic to read, e.g. replay <topic>');
  if (extra.length > 0) return fail(`unexpected argument "${extra[0]}": give exactly one topic`);

  const text = (name: OptionName): string | undefined => {
    const value = values[name];
    return typeof value === 'string' ? value : undefined;
  };
  const fromText = text('from');
  if (values['from-beginning'] && fromText !== undefined) {
    return fail('--from-beginning and --from cannot be used together: give one of them');
  }
  let fromMs: number | undefined;
  if (fromText !== undefined) {
    fromMs = parseRfc3339(fromText);
    if (fromMs === undefined) return fail(`--from "${fromText}" is not a time: allowed is ${TIME_ALLOWED}`);
  }
  const untilText = text('until');
  let untilMs: number | undefined;
  if (untilText !== undefined) {
    untilMs = parseRfc3339(untilText);
    if (untilMs === undefined)
      return fail(`--until "${untilText}" is not a time: allowed is ${TIME_ALLOWED}`);
    if (fromMs !== undefined && untilMs < fromMs) {
      return fail(
        `--until "${untilText}" is before --from "${fromText}": --until must not be earlier than --from`,
      );
    }
  }
  const format = text('format') ?? 'jsonl';
  if (!(FORMATS as readonly string[]).includes(format)) {
    return fail(`--format "${format}" is not allowed: use one of ${FORMATS.join(', ')}`);
  }
  const brokersText = text('brokers');
  let brokers: readonly string[] | undefined;
  if (brokersText !== undefined) {
    const list = brokersText
      .split(',')
      .map((b) => b.trim())
      .filter((b) => b !== '');
    const bad = list.find((b) => {
      const port = Number(HOST_PORT.exec(b)?.[2] ?? 0);
      return port < 1 || port > 65535;
    });
    if (list.length === 0 || bad !== undefined) {
      return fail(
        `--brokers "${brokersText}" is not allowed: use comma-separated host:port pairs, port from 1 to 65535`,
      );
    }
    brokers = Object.freeze(list);
  }

  const options: ReplayOptions = {
    topic,
    start: Object.freeze(fromMs === undefined ? { kind: 'beginning' } : { kind: 'time', ms: fromMs }),
    untilMs,
    key: text('key'),
    format: format as Format,
    follow: values.follow === true,
    brokers,
  };
  return Object.freeze({ kind: 'run', options: Object.freeze(options) });
}
