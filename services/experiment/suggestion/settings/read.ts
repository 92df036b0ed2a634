// Reading algorithm settings (name/value text pairs) with the messages Katib's services answer.

import type { AlgorithmSetting } from '../../../../proto/gen/api/v1/beta1/AlgorithmSetting.ts';
import { invalidArgument } from '../../../../shared/errors.ts';
import { readFloat, readInt } from '../../common/katib-numbers.ts';

export interface Setting {
  readonly name: string;
  readonly value: string;
}

/** Settings by name; a later entry of the same name wins, as in Katib's dict comprehensions. */
export function settingsMap(settings: readonly AlgorithmSetting[] | undefined): Map<string, string> {
  const map = new Map<string, string>();
  for (const setting of settings ?? []) map.set(setting.name ?? '', setting.value ?? '');
  return map;
}

/** Katib's answer to a name its service does not know. */
export function rejectUnknown(
  settings: ReadonlyMap<string, string>,
  known: ReadonlySet<string>,
  algorithm: string,
): void {
  for (const name of settings.keys()) {
    if (!known.has(name)) throw invalidArgument(`unknown setting ${name} for algorithm ${algorithm}`);
  }
}

/**
 * An optional number setting, read by readInt or readFloat; `message` when `check` refuses it (a
 * function of the text given, for messages that name the value).
 */
function optionalNumber(
  read: (name: string, value: string) => number,
  settings: ReadonlyMap<string, string>,
  name: string,
  check: (value: number) => boolean,
  message: string | ((text: string) => string),
): number | undefined {
  const text = settings.get(name);
  if (text === undefined) return undefined;
  const value = read(name, text);
  if (!check(value)) throw invalidArgument(typeof message === 'string' ? message : message(text));
  return value;
}

/** An optional setting, the check it must pass and the message to give otherwise. */
type OptionalNumber = (
  settings: ReadonlyMap<string, string>,
  name: string,
  check: (value: number) => boolean,
  message: string | ((text: string) => string),
) => number | undefined;

export const optionalInt: OptionalNumber = (...args) => optionalNumber(readInt, ...args);
export const optionalFloat: OptionalNumber = (...args) => optionalNumber(readFloat, ...args);

/** One of a fixed set of words, with Katib's "not supported" message otherwise. */
export function optionalChoice<T extends string>(
  settings: ReadonlyMap<string, string>,
  name: string,
  choices: readonly T[],
  message: (value: string) => string,
): T | undefined {
  const text = settings.get(name);
  if (text === undefined) return undefined;
  if (!(choices as readonly string[]).includes(text)) throw invalidArgument(message(text));
  return text as T;
}
