// The read API's query parameters for a page of trials and for curves, checked once, each error
// naming its parameter.
import { invalidArgument } from '../../../shared/errors.ts';
import type { TrialPageQuery, TrialSort } from '../common/read-model.ts';

export const TRIAL_PAGE_PARAMETERS = ['offset', 'limit', 'sort', 'order', 'status', 'q'] as const;
export const MAX_PAGE = 1_000;
export const DEFAULT_PAGE = 50;
export const MAX_COLUMNS = 4_000;
export const DEFAULT_COLUMNS = 1_000;

const COLUMNS = ['order', 'name', 'condition', 'bestObjective'] as const;

/** A whole number in [min, max] from a query parameter, or the default when it is absent. */
function whole(query: ReadonlyMap<string, string>, name: string, min: number, max: number, fallback: number) {
  const text = query.get(name);
  if (text === undefined) return fallback;
  const n = /^\d{1,15}$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= min && n <= max)) {
    const range = max === Number.MAX_SAFE_INTEGER ? `from ${min}` : `from ${min} to ${max}`;
    throw invalidArgument(`query parameter ${name}: ${JSON.stringify(text)} is not a whole number ${range}`);
  }
  return n;
}

/** ?offset ?limit ?sort ?order ?status ?q; `allRows` lifts the page size (CSV takes every row). */
export function trialPageQuery(query: ReadonlyMap<string, string>, allRows = false): TrialPageQuery {
  const offset = whole(query, 'offset', 0, Number.MAX_SAFE_INTEGER, 0);
  const limit = allRows
    ? whole(query, 'limit', 1, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)
    : whole(query, 'limit', 1, MAX_PAGE, DEFAULT_PAGE);
  const sortText = query.get('sort') ?? 'order';
  let sort: TrialSort;
  if (sortText.startsWith('param:') && sortText.length > 'param:'.length)
    sort = { parameter: sortText.slice(6) };
  else if ((COLUMNS as readonly string[]).includes(sortText))
    sort = { column: sortText as (typeof COLUMNS)[number] };
  else
    throw invalidArgument(
      `query parameter sort: ${JSON.stringify(sortText)} is not ${COLUMNS.join(', ')} or param:<parameter name>`,
    );
  const order = query.get('order') ?? 'asc';
  if (order !== 'asc' && order !== 'desc')
    throw invalidArgument(`query parameter order: ${JSON.stringify(order)} is not asc or desc`);
  const status = query.get('status');
  const q = query.get('q');
  return {
    offset,
    limit,
    sort,
    descending: order === 'desc',
    ...(status === undefined || status === '' ? {} : { condition: status }),
    ...(q === undefined || q === '' ? {} : { nameContains: q }),
  };
}

/** ?columns: how many columns the chart has. */
export const columnsOf = (query: ReadonlyMap<string, string>): number =>
  whole(query, 'columns', 1, MAX_COLUMNS, DEFAULT_COLUMNS);
