// Reading a pruner's settings from Katib's name/value pairs: each setting declares what it allows,
// and every refusal names the setting, the value and that allowance (INVALID_ARGUMENT).
import { invalidArgument } from '../../../../shared/errors.ts';
import { parseDecimal, parsePythonInt } from '../../common/katib-numbers.ts';

/** Katib's steps are int32. */
export const MAX_STEP = 2_147_483_647;

export interface SettingKind<T> {
  /** The value, or undefined when the text is not allowed. */
  read(text: string): T | undefined;
  /** What is allowed, as the message says it: "an integer from 1 to 2147483647". */
  readonly allowed: string;
}

export const integerFrom = (min: number): SettingKind<number> => ({
  allowed: `an integer from ${min} to ${MAX_STEP}`,
  read(text) {
    const value = parsePythonInt(text);
    return value !== undefined && value >= min && value <= MAX_STEP ? value : undefined;
  },
});

export const integerFromOrAuto = (min: number): SettingKind<number | 'auto'> => ({
  allowed: `an integer from ${min} to ${MAX_STEP}, or auto`,
  read: (text) => (text.trim() === 'auto' ? 'auto' : integerFrom(min).read(text)),
});

/** A finite number within [min, max] (either bound may be infinite). */
export const numberWithin = (min: number, max: number, allowed: string): SettingKind<number> => ({
  allowed,
  read(text) {
    const value = parseDecimal(text);
    return value !== undefined && Number.isFinite(value) && value >= min && value <= max ? value : undefined;
  },
});

export const ANY_NUMBER = numberWithin(-Infinity, Infinity, 'a finite number');

export interface SettingDeclaration<T> {
  readonly kind: SettingKind<T>;
  /** Undefined: the setting must be given, unless `optional`. */
  readonly default?: T;
  readonly optional?: boolean;
}

type Declarations = Record<string, SettingDeclaration<unknown>>;
export type ReadSettings<D extends Declarations> = {
  readonly [K in keyof D]: D[K] extends SettingDeclaration<infer T>
    ? D[K] extends { readonly optional: true }
      ? T | undefined
      : T
    : never;
};

export interface Setting {
  readonly name: string;
  readonly value: string;
}

/** The message for a setting whose value is not allowed. */
export const notAllowed = (algorithm: string, name: string, value: string, allowed: string): string =>
  `${name}(${value}) for algorithm ${algorithm} must be ${allowed}`;

/**
 * Reads the declared settings (a later repeat of a name wins, as in Katib's services); throws on an
 * unknown name, a value its kind refuses, or a required setting left out.
 *
 * @param extra names another reader takes (the pruner a `patient` wraps): not unknown here.
 */
export function readDeclared<D extends Declarations>(
  algorithm: string,
  settings: readonly Setting[],
  declarations: D,
  extra: readonly string[] = [],
): ReadSettings<D> {
  const out: Record<string, unknown> = {};
  for (const [name, declaration] of Object.entries(declarations)) out[name] = declaration.default;
  for (const { name, value } of settings) {
    const declaration = declarations[name];
    if (declaration === undefined) {
      if (extra.includes(name)) continue;
      const known = [...Object.keys(declarations), ...extra].join(', ');
      throw invalidArgument(`unknown setting ${name} for algorithm ${algorithm} (known: ${known})`);
    }
    const read = declaration.kind.read(value);
    if (read === undefined)
      throw invalidArgument(notAllowed(algorithm, name, value, declaration.kind.allowed));
    out[name] = read;
  }
  for (const [name, declaration] of Object.entries(declarations))
    if (out[name] === undefined && !declaration.optional)
      throw invalidArgument(
        `setting ${name} for algorithm ${algorithm} is required: ${declaration.kind.allowed}`,
      );
  return Object.freeze(out) as ReadSettings<D>;
}
