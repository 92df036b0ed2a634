import { shellQuote } from './flags.ts';

const MEMBER = ['name', 'host', 'dataDir', 'clientUrl', 'peerUrl'] as const;

/** What the command-template driver fills in, per command; every value is shell-quoted. */
export const TEMPLATE_PLACEHOLDERS = Object.freeze({
  start: [...MEMBER, 'binary', 'flags', 'version'],
  stop: MEMBER,
  status: MEMBER,
  kill: MEMBER,
  logs: [...MEMBER, 'since'],
  restore: [...MEMBER, 'snapshot', 'initialCluster', 'initialClusterToken'],
  check: [...MEMBER, 'file'],
} as const);
export type TemplateName = keyof typeof TEMPLATE_PLACEHOLDERS;
export type Placeholder = (typeof TEMPLATE_PLACEHOLDERS)[TemplateName][number];

const PLACEHOLDER = /\{([^{}]*)\}/g;

/** The placeholder names of a template, or the problem (an unclosed or empty brace). */
export function parsePlaceholders(
  template: string,
): { ok: true; names: string[] } | { ok: false; problem: string } {
  const names: string[] = [];
  for (const match of template.matchAll(PLACEHOLDER)) {
    if (!/^[a-zA-Z]+$/.test(match[1]!)) return { ok: false, problem: `bad placeholder ${match[0]}` };
    names.push(match[1]!);
  }
  const rest = template.replace(PLACEHOLDER, '');
  if (/[{}]/.test(rest)) return { ok: false, problem: `unbalanced brace in ${JSON.stringify(template)}` };
  return { ok: true, names };
}

/**
 * Fills a template for `/bin/sh -c`. Each value is quoted as one shell word, except `{flags}`,
 * which becomes the member's flags as separate quoted words. A placeholder without a value is an error.
 */
export function renderTemplate(
  template: string,
  values: Partial<Record<Placeholder, string | readonly string[]>>,
): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => {
    const value = values[name as Placeholder];
    if (value === undefined)
      throw new RangeError(`template ${JSON.stringify(template)}: no value for ${whole}`);
    return typeof value === 'string' ? shellQuote(value) : value.map(shellQuote).join(' ');
  });
}
