// The settings pages' Markdown: one table per group of settings, a row per variable. Pure: rows in,
// text out, so the generator and its drift test write the same bytes.
import type { SettingsSpec } from '../../shared/settings.ts';
import { describeSettings } from '../../shared/settings.ts';

/** One row of a settings table, its cells already Markdown. */
export interface SettingRow {
  readonly variable: string;
  readonly default: string;
  /** What is allowed; undefined for tables without that column (the shell scripts' variables). */
  readonly allowed?: string;
  readonly meaning: string;
}

/** A `|` would end the cell: escaped, also inside code spans (GitHub reads `\|` there as `|`). */
const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** Plain text shown as such: `<NAME>` would otherwise be read as an HTML tag. */
export const plain = (text: string): string => text.replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** Text as one code span, whatever backticks it holds. */
export const code = (text: string): string => (text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``);

/** A declared default: code, or words when it says how the default is chosen ("true when …"). */
export function defaultCell(defaultText: string | undefined): string {
  if (defaultText === undefined) return '(required)';
  if (defaultText === '') return '(empty)';
  return /^[a-z]+ [a-z]+ /.test(defaultText) ? plain(defaultText) : code(defaultText);
}

/**
 * The rows of a settings spec. Every field must carry its meaning (`documented` in the spec's
 * module): a setting without one stops the generator, naming it.
 */
export function specRows(spec: SettingsSpec, where: string): SettingRow[] {
  return describeSettings(spec).map((row) => {
    if (row.doc === undefined || row.doc.trim() === '')
      throw new Error(`${row.variable} (${where}) has no meaning: add it to the documented(...) call there`);
    return {
      variable: code(row.variable),
      default: defaultCell(row.default === '(required)' ? undefined : row.default),
      allowed: plain(row.allowed),
      meaning: row.doc,
    };
  });
}

/** A Markdown table of `rows`, with the allowed column when the rows have it. */
export function settingsTable(rows: readonly SettingRow[]): string {
  const withAllowed = rows.some((r) => r.allowed !== undefined);
  const header = withAllowed
    ? '| variable | default | allowed | meaning |\n|---|---|---|---|'
    : '| variable | default | meaning |\n|---|---|---|';
  const lines = rows.map((r) =>
    withAllowed
      ? `| ${cell(r.variable)} | ${cell(r.default)} | ${cell(r.allowed ?? '')} | ${cell(r.meaning)} |`
      : `| ${cell(r.variable)} | ${cell(r.default)} | ${cell(r.meaning)} |`,
  );
  return [header, ...lines].join('\n');
}
