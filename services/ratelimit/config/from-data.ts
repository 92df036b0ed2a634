// A loaded configuration made from its data (what loadConfig gave, carried to a decision thread by
// structured clone): no YAML parser, no checks; the decision threads import only this.
import { findLimit } from './match.ts';
import { overrideRule, ruleFromMatch } from './rule.ts';
import type { ConfigData, LimitLookup, RateLimitConfig, RequestDescriptor } from './types.ts';

const NO_LIMIT: LimitLookup = Object.freeze({ kind: 'no-limit' });
const DOMAIN_NOT_FOUND: LimitLookup = Object.freeze({ kind: 'domain-not-found' });

/** The configuration `data` describes (one loadConfig gave, carried here by structured clone): no parsing, no checks. */
export function configFromData(data: ConfigData): RateLimitConfig {
  const { domains, dump } = data;
  const files = Object.freeze(data.files.map((file) => Object.freeze({ name: file.name, text: file.text })));
  const frozen: ConfigData = Object.freeze({ version: data.version, files, domains, dump });
  return Object.freeze({
    version: data.version,
    files,
    domains: Object.freeze([...domains.keys()]),
    data: frozen,
    getLimit(domain: string, descriptor: RequestDescriptor): LimitLookup {
      const root = domains.get(domain);
      if (root === undefined) return DOMAIN_NOT_FOUND;
      const override = overrideRule(domain, descriptor);
      if (override !== undefined) return { kind: 'limit', rule: override };
      const match = findLimit(root, descriptor.entries);
      return match === undefined
        ? NO_LIMIT
        : { kind: 'limit', rule: ruleFromMatch(domain, descriptor.entries, match) };
    },
    dump: () => dump,
  });
}
