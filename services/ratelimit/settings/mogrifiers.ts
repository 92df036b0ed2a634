// USE_DOG_STATSD_MOGRIFIERS=A,B and DOG_STATSD_MOGRIFIERS_A_{PATTERN,NAME,TAGS}, as
// envoyproxy/ratelimit's godogstats reads them.
import type { Env } from '../../../shared/settings.ts';
import { parseKeyValueList } from './key-value-list.ts';

/** A DogStatsD mogrifier: a stat name matching `pattern` is sent as `name` with `tags` ($1.. from the match). */
export interface Mogrifier {
  readonly pattern: RegExp;
  readonly name: string;
  readonly tags: ReadonlyArray<readonly [string, string]>;
}

/** The mogrifiers `names` lists; each problem found is pushed onto `problems`. */
export function readMogrifiers(env: Env, names: string, problems: string[]): readonly Mogrifier[] {
  const mogrifiers: Mogrifier[] = [];
  for (const name of names
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '')) {
    const variable = (part: string) => `DOG_STATSD_MOGRIFIERS_${name}_${part}`;
    const patternText = env[variable('PATTERN')] ?? '';
    const target = env[variable('NAME')] ?? '';
    const tagsText = env[variable('TAGS')] ?? '';
    let pattern: RegExp | undefined;
    if (patternText === '')
      problems.push(
        `${variable('PATTERN')} must be set: mogrifier ${name} is listed in USE_DOG_STATSD_MOGRIFIERS`,
      );
    else {
      try {
        pattern = new RegExp(patternText);
      } catch (error) {
        problems.push(
          `${variable('PATTERN')}=${JSON.stringify(patternText)} is not allowed: a regular expression (${(error as Error).message})`,
        );
      }
    }
    if (target === '')
      problems.push(
        `${variable('NAME')} must be set: mogrifier ${name} is listed in USE_DOG_STATSD_MOGRIFIERS`,
      );
    const tags = parseKeyValueList(tagsText, ':');
    for (const _ of tags.bad)
      problems.push(
        `${variable('TAGS')}=${JSON.stringify(tagsText)} is not allowed: comma-separated key:value pairs`,
      );
    if (pattern !== undefined && target !== '')
      mogrifiers.push(Object.freeze({ pattern, name: target, tags: tags.pairs }));
  }
  return Object.freeze(mogrifiers);
}
