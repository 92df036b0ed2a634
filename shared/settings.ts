/**
 * Settings from environment variables: every field declares its variable, default and what is
 * allowed; `readSettings` checks all of them, reports every bad one in one error, and freezes.
 */

export type Env = Readonly<Record<string, string | undefined>>;

type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };

export interface Field<T> {
  readonly variable: string;
  /** What is allowed, for error messages and the settings pages (docs/settings/). */
  readonly allowed: string;
  /** Shown in docs; undefined means required. */
  readonly defaultText: string | undefined;
  /** What the setting means, for the settings pages (`npm run docs:settings`); reading ignores it. */
  readonly doc?: string;
  read(env: Env): Outcome<T>;
}

export type SettingsSpec = Readonly<Record<string, Field<unknown>>>;
export type SettingsOf<S extends SettingsSpec> = {
  readonly [K in keyof S]: S[K] extends Field<infer T> ? T : never;
};

export class SettingsError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`invalid settings:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'SettingsError';
    this.problems = problems;
  }
}

const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });

function field<T>(
  variable: string,
  allowed: string,
  fallback: T | undefined,
  defaultText: string | undefined,
  parse: (raw: string) => T | undefined,
): Field<T> {
  return {
    variable,
    allowed,
    defaultText,
    read(env) {
      const raw = env[variable];
      if (raw === undefined || raw === '') {
        if (fallback !== undefined) return ok(fallback);
        return { ok: false, problem: `${variable} is required: ${allowed}` };
      }
      const value = parse(raw);
      if (value === undefined)
        return { ok: false, problem: `${variable}=${JSON.stringify(raw)} is not allowed: ${allowed}` };
      return ok(value);
    },
  };
}

export function str(variable: string, fallback?: string, allowed = 'any text'): Field<string> {
  return field(variable, allowed, fallback, fallback, (raw) => raw);
}

export function int(
  variable: string,
  fallback: number | undefined,
  range: { min?: number; max?: number } = {},
): Field<number> {
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = range;
  const allowed = `an integer from ${min} to ${max}`;
  return field(variable, allowed, fallback, fallback?.toString(), (raw) => {
    if (!/^[+-]?\d+$/.test(raw.trim())) return undefined;
    const value = Number(raw);
    return value >= min && value <= max ? value : undefined;
  });
}

export function num(
  variable: string,
  fallback: number | undefined,
  range: { min?: number; max?: number } = {},
): Field<number> {
  const { min = -Infinity, max = Infinity } = range;
  const allowed = `a number from ${min} to ${max}`;
  return field(variable, allowed, fallback, fallback?.toString(), (raw) => {
    const value = Number(raw);
    return raw.trim() !== '' && Number.isFinite(value) && value >= min && value <= max ? value : undefined;
  });
}

const TRUE = new Set(['1', 't', 'true', 'yes', 'on']);
const FALSE = new Set(['0', 'f', 'false', 'no', 'off']);

export function bool(variable: string, fallback: boolean): Field<boolean> {
  return field(
    variable,
    'true or false (also 1/0, t/f, yes/no, on/off)',
    fallback,
    String(fallback),
    (raw) => {
      const lower = raw.trim().toLowerCase();
      if (TRUE.has(lower)) return true;
      if (FALSE.has(lower)) return false;
      return undefined;
    },
  );
}

/** A boolean whose default depends on other settings: undefined when unset, `defaultText` says how. */
export function optionalBool(variable: string, defaultText: string): Field<boolean | undefined> {
  const strict = bool(variable, false);
  return {
    variable,
    allowed: strict.allowed,
    defaultText,
    read: (env) => (env[variable] === undefined || env[variable] === '' ? ok(undefined) : strict.read(env)),
  };
}

export function oneOf<const T extends string>(
  variable: string,
  choices: readonly T[],
  fallback?: T,
): Field<T> {
  const allowed = `one of ${choices.join(', ')}`;
  return field(variable, allowed, fallback, fallback, (raw) => choices.find((c) => c === raw.trim()));
}

/** Comma-separated values; `item` validates each one (return false to reject). */
export function list(
  variable: string,
  fallback: readonly string[] | undefined,
  item: { allowed: string; valid: (value: string) => boolean } = {
    allowed: 'comma-separated values',
    valid: () => true,
  },
): Field<readonly string[]> {
  return field(
    variable,
    item.allowed,
    fallback ? Object.freeze([...fallback]) : undefined,
    fallback?.join(','),
    (raw) => {
      const values = raw
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== '');
      return values.length > 0 && values.every(item.valid) ? Object.freeze(values) : undefined;
    },
  );
}

/** host:port pairs, such as Kafka bootstrap brokers. */
export function hostPorts(variable: string, fallback: readonly string[]): Field<readonly string[]> {
  return list(variable, fallback, {
    allowed: 'comma-separated host:port pairs, port from 1 to 65535',
    valid: (v) => {
      const match = /^(.+):(\d+)$/.exec(v);
      return match !== null && Number(match[2]) >= 1 && Number(match[2]) <= 65535;
    },
  });
}

export function port(variable: string, fallback: number): Field<number> {
  return int(variable, fallback, { min: 0, max: 65535 });
}

export function readSettings<S extends SettingsSpec>(spec: S, env: Env): SettingsOf<S> {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, f] of Object.entries(spec)) {
    const outcome = f.read(env);
    if (outcome.ok) values[key] = outcome.value;
    else problems.push(outcome.problem);
  }
  if (problems.length > 0) throw new SettingsError(problems);
  return Object.freeze(values) as SettingsOf<S>;
}

/**
 * `spec` with each field's meaning attached (`docs`, by the spec's keys), next to the declarations
 * it documents; reading is unchanged. The settings pages are generated from these.
 */
export function documented<S extends SettingsSpec>(spec: S, docs: { readonly [K in keyof S]?: string }): S {
  const fields = Object.entries(spec).map(([key, f]) => {
    const doc = docs[key as keyof S];
    return [key, doc === undefined ? f : Object.freeze({ ...f, doc })] as const;
  });
  return Object.fromEntries(fields) as S;
}

/** Rows for documentation: variable, default, allowed values, and the meaning when one is given. */
export function describeSettings(
  spec: SettingsSpec,
): Array<{ variable: string; default: string; allowed: string; doc?: string }> {
  return Object.values(spec).map((f) => ({
    variable: f.variable,
    default: f.defaultText ?? '(required)',
    allowed: f.allowed,
    ...(f.doc === undefined ? {} : { doc: f.doc }),
  }));
}
