// schemas/gen/events.ts is what `npm run events:gen` makes of the current .avsc files, byte for
// byte: a schema change that the types do not follow fails here, and then in the type checker.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateEventTypes, OUTPUT_FILE } from '../../../scripts/events-gen.ts';
import { loadCatalog } from '../../../shared/avro/catalog.ts';

describe('npm run events:gen', () => {
  it('has written schemas/gen/events.ts from the current schemas', () => {
    expect(readFileSync(OUTPUT_FILE, 'utf8')).toBe(generateEventTypes());
  });

  it('types every version of every event the catalog knows, and maps each event to its newest', () => {
    const generated = generateEventTypes();
    const catalog = loadCatalog();
    for (const { eventType, version } of catalog.versions)
      expect(generated).toContain(`export interface ${eventType}V${version}<Time = Date>`);
    for (const eventType of new Set(catalog.versions.map((v) => v.eventType))) {
      const newest = Math.max(
        ...catalog.versions.filter((v) => v.eventType === eventType).map((v) => v.version),
      );
      expect(generated).toContain(`  ${eventType}: ${eventType}V${newest}<Time>;`);
    }
  });

  it("types timestamps with the caller's time type and enums as their symbols", () => {
    const generated = generateEventTypes();
    expect(generated).toMatch(/readonly occurred_at: Time;/);
    expect(generated).toMatch(/readonly condition: 'CREATED' \| 'RUNNING' \| 'SUCCEEDED'/);
  });
});
