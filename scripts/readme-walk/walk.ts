// What every step of the README walk shares: the step and verdict shapes, the context a step runs
// in, and the judge that compares what a command did with what the README says it does.
import { type Finished, type Running, run, start } from './shell.ts';

/** One command run (or a variant of it) and whether it did what the README says. */
export interface Verdict {
  /** What was run, when it differs from the README's text (a placeholder filled in, a setting added). */
  readonly ran?: string;
  readonly ok: boolean;
  readonly expected: string;
  readonly seen: string;
}

export interface Walk {
  readonly root: string;
  /** The environment a reader has: the product's servers (infra profile `product`), nothing of the tests. */
  readonly env: NodeJS.ProcessEnv;
  /** What `scripts/infra.sh env` prints for the product profile. */
  readonly infra: Readonly<Record<string, string>>;
  /** The product was started before the walk (CI); else the walk starts it at `npm start` and stops it at the end. */
  readonly productRunning: boolean;
  /** Work to undo when the walk ends (processes, folders), run last first. */
  readonly cleanups: Array<() => Promise<void>>;
  /** Shared between steps (the product the walk started, the etcd cluster of the kvupgrade steps). */
  readonly state: Map<string, unknown>;
  /** INFRA_PORT_SHIFT of a walk on moved ports (0: the product's own); the benches' servers go 1000 above it. */
  readonly portShift: number;
  /**
   * Where each port the commands name (`NAMED_PORTS`) runs when the product is moved (`namedPorts`),
   * so a walk beside another checkout's product takes none of its ports; empty: where they say.
   */
  readonly ports: ReadonlyMap<number, number>;
}

/** The ports the commands name: the product's (`npm start`: Kafka, experiment, ratelimit) and the extra instances'. */
export const NAMED_PORTS: readonly number[] = [
  9092, 6789, 6790, 6791, 8686, 8687, 8688, 9101, 9102, 9103, 8080, 8081, 6070,
];

/** scripts/infra.sh's port settings: with INFRA_PORT_SHIFT, they move one of the product's servers further. */
export const INFRA_PORTS: readonly string[] = [
  'KAFKA_PORT',
  'KAFKA_CONTROLLER_PORT',
  'REDIS_PORT',
  'POSTGRES_PORT',
  'MEMCACHED_PORT',
];

/** Every named port moved by `shift`, Kafka's where the moved product's broker listens (`KAFKA_PORT` may set it). */
export function namedPorts(shift: number, kafkaPort: number): Map<number, number> {
  return new Map(NAMED_PORTS.map((p) => [p, p === 9092 ? kafkaPort : p + shift]));
}

/** Where the walk runs what the commands call `port`. */
export const portOf = (walk: Walk, port: number): number => walk.ports.get(port) ?? port;

/** `text` with every named port (`:8686`, `=6790`) where the walk runs it; as written when nothing moved. */
export function moved(walk: Walk, text: string): string {
  if (walk.ports.size === 0) return text;
  return text.replace(/(?<=[:=])\d{4,5}\b/g, (port) => String(portOf(walk, Number(port))));
}

export interface Step {
  /** The command as `readmeCommands` gives it (whitespace runs compare as one space). */
  readonly command: string;
  /** Runs the `command` (the text as written) and judges it. */
  readonly run: (walk: Walk, command: string) => Promise<Verdict[]>;
}

export function sh(
  walk: Walk,
  command: string,
  options: { timeoutMs: number; cwd?: string; env?: NodeJS.ProcessEnv },
): Promise<Finished> {
  return run(moved(walk, command), {
    cwd: options.cwd ?? walk.root,
    env: options.env ?? walk.env,
    timeoutMs: options.timeoutMs,
  });
}

export function launch(
  walk: Walk,
  command: string,
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Running {
  return start(moved(walk, command), { cwd: options.cwd ?? walk.root, env: options.env ?? walk.env });
}

export interface Expect {
  /** Exit code (default 0). */
  readonly code?: number;
  /** Fragments the output (stdout and stderr) must hold. */
  readonly prints?: ReadonlyArray<string | RegExp>;
  /** Fragments it must not hold. */
  readonly notPrints?: ReadonlyArray<string | RegExp>;
}

const shown = (fragment: string | RegExp): string =>
  typeof fragment === 'string' ? JSON.stringify(fragment) : String(fragment);

/** The last `n` characters of `text` on one line. */
export function tail(text: string, n = 240): string {
  const flat = text.trim().replace(/\s*\n\s*/g, ' ⏎ ');
  return flat.length > n ? `…${flat.slice(-n)}` : flat;
}

const holds = (output: string, fragment: string | RegExp): boolean =>
  typeof fragment === 'string' ? output.includes(fragment) : fragment.test(output);

/**
 * The first line of `output` that reports an error (a thrown Error, a pino `error`/`fatal` line),
 * shortened: the tail alone often holds only the stop that followed it.
 */
export function firstError(output: string, n = 400): string | undefined {
  const line = output
    .split('\n')
    .find((l) => /"level":"(error|fatal)"|\b[A-Z]\w*Error\b|\berror:/i.test(l))
    ?.trim();
  return line === undefined ? undefined : line.length > n ? `${line.slice(0, n - 1)}…` : line;
}

/** How `result` ended: `exit 0 in 1.2 s`, `killed by SIGKILL after the time allowed`. */
export function ending(result: Finished): string {
  const how = result.code !== null ? `exit ${result.code}` : `ended by ${result.signal}`;
  const when =
    result.stoppedInMs === undefined
      ? `in ${(result.ms / 1000).toFixed(1)} s`
      : `${(result.stoppedInMs / 1000).toFixed(1)} s after the signal`;
  return `${how}${result.timedOut ? ' (killed: it did not end in the time allowed)' : ''} ${when}`;
}

export function judge(result: Finished, expect: Expect, ran?: string): Verdict {
  const code = expect.code ?? 0;
  const output = result.stdout + result.stderr;
  const missing = (expect.prints ?? []).filter((f) => !holds(output, f));
  const unwanted = (expect.notPrints ?? []).filter((f) => holds(output, f));
  const expected = [
    `exit ${code}`,
    ...(expect.prints ?? []).map((f) => `prints ${shown(f)}`),
    ...(expect.notPrints ?? []).map((f) => `not ${shown(f)}`),
  ].join(', ');
  const ok = result.code === code && !result.timedOut && missing.length === 0 && unwanted.length === 0;
  const seen = ok
    ? `${ending(result)}${expect.prints?.length ? ', printed them' : ''}`
    : [
        ending(result),
        ...missing.map((f) => `no ${shown(f)}`),
        ...unwanted.map((f) => `printed ${shown(f)}`),
        ...(firstError(output) ? [`first error: ${firstError(output)}`] : []),
        `output: ${tail(output) || '(none)'}`,
      ].join('; ');
  return { ...(ran === undefined ? {} : { ran }), ok, expected, seen };
}

/** A verdict made by hand, for checks that are not one command's exit and output. */
export const verdict = (ok: boolean, expected: string, seen: string, ran?: string): Verdict => ({
  ...(ran === undefined ? {} : { ran }),
  ok,
  expected,
  seen,
});

/** Whether something accepts TCP connections on 127.0.0.1:port. */
export { answers } from '../port-holder.ts';
