import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type {
  ConfigFile,
  LimitLookup,
  RateLimitConfig,
  RateLimitRule,
} from '../../../../services/ratelimit/config/index.ts';
import { loadConfig } from '../../../../services/ratelimit/config/index.ts';

const FIXTURES = fileURLToPath(new URL('../../../fixtures/ratelimit/config/', import.meta.url));

/** A fixture named as the reference's unit tests name it (the file name is the error prefix). */
export function fixture(name: string): ConfigFile {
  return { name, text: readFileSync(FIXTURES + name, 'utf8') };
}

export function loadFixtures(names: readonly string[], mergeDomainConfig = false): RateLimitConfig {
  return loadConfig(names.map(fixture), { mergeDomainConfig });
}

export function loadText(text: string, name = 'test.yaml', mergeDomainConfig = false): RateLimitConfig {
  return loadConfig([{ name, text }], { mergeDomainConfig });
}

/** The message loadConfig throws, or a failure when it loads. */
export function loadError(files: readonly ConfigFile[], mergeDomainConfig = false): string {
  try {
    loadConfig(files, { mergeDomainConfig });
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the configuration to be rejected');
}

export function textError(text: string, name = 'test.yaml'): string {
  return loadError([{ name, text }]);
}

export function lookup(config: RateLimitConfig, domain: string, ...pairs: [string, string][]): LimitLookup {
  return config.getLimit(domain, { entries: pairs.map(([key, value]) => ({ key, value })) });
}

/** The rule a lookup found, or a failure naming what was found instead. */
export function ruleOf(result: LimitLookup): RateLimitRule {
  if (result.kind !== 'limit') throw new Error(`expected a limit, got ${result.kind}`);
  return result.rule;
}
