import { describe, expect, it } from 'vitest';
import { importGraph, sourceFiles } from './import-graph.ts';

const SERVICE = 'services/experiment/';
const FEATURES = ['dbmanager', 'suggestion', 'earlystopping', 'web'] as const;
const COMMON = 'common';

/** The feature folder a file of the service belongs to, 'common', or undefined for the root files. */
function areaOf(file: string): string | undefined {
  if (!file.startsWith(SERVICE)) return undefined;
  const [first, ...rest] = file.slice(SERVICE.length).split('/');
  return rest.length > 0 ? first : undefined;
}

/** Imports that break the rule: a feature reaches into another feature or the service's root files. */
function crossings(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const found: string[] = [];
  for (const [file, targets] of graph) {
    const from = areaOf(file);
    if (from === undefined) continue;
    for (const target of targets) {
      if (!target.startsWith(SERVICE)) continue;
      const to = areaOf(target);
      const allowed = from === COMMON ? to === COMMON : to === from || to === COMMON;
      if (!allowed) found.push(`${file} -> ${target}`);
    }
  }
  return found.sort();
}

describe('the experiment service in feature folders', () => {
  it('has the four features and the shared place', () => {
    const areas = new Set(sourceFiles([SERVICE]).map(areaOf));
    for (const area of [...FEATURES, COMMON]) expect(areas, area).toContain(area);
  });

  it('lets a feature import only its own files and common/; common/ imports no feature', () => {
    const graph = importGraph(sourceFiles([SERVICE]));
    expect(graph.size).toBeGreaterThan(60);
    expect(crossings(graph)).toEqual([]);
  });

  it('tells a crossing from an allowed import', () => {
    const graph = new Map([
      [`${SERVICE}main.ts`, [`${SERVICE}web/adapters/start-web.ts`]],
      [`${SERVICE}web/adapters/http-api.ts`, [`${SERVICE}common/ports.ts`, `${SERVICE}web/csv.ts`]],
      [`${SERVICE}web/adapters/start-web.ts`, [`${SERVICE}settings.ts`]],
      [`${SERVICE}earlystopping/tracker.ts`, [`${SERVICE}suggestion/numbers.ts`, 'shared/errors.ts']],
      [`${SERVICE}common/ports.ts`, [`${SERVICE}dbmanager/read-model.ts`]],
    ]);
    expect(crossings(graph)).toEqual([
      `${SERVICE}common/ports.ts -> ${SERVICE}dbmanager/read-model.ts`,
      `${SERVICE}earlystopping/tracker.ts -> ${SERVICE}suggestion/numbers.ts`,
      `${SERVICE}web/adapters/start-web.ts -> ${SERVICE}settings.ts`,
    ]);
  });
});
