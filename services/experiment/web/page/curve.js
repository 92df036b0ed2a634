// A curve as the chart holds it: per column (origin + k * columnMs) its first, lowest, highest and
// last point (M4), as the server reduced it (GET /api/trials/NAME/curves). Live points go into their
// column; past maxColumns the columns pair up (twice as wide), so the chart never holds more than
// four points a column, and the lowest and highest of every column stay. A module of its own so that
// it can be tested without a browser.

/**
 * @param {{ origin: number, columnMs: number, data: [number, number][], points?: number }} reduced
 * @param {number} maxColumns
 */
export function createCurve(reduced, maxColumns) {
  const origin = reduced.origin;
  let columnMs = reduced.columnMs > 0 ? reduced.columnMs : 1;
  /** column → [first, min, max, last]; `keys` in order. */
  let columns = new Map();
  let keys = [];
  let cached;
  let count = reduced.points ?? reduced.data.length;

  const put = (t, v) => {
    const k = Math.floor((t - origin) / columnMs);
    const p = [t, v];
    const c = columns.get(k);
    cached = undefined;
    if (!c) {
      columns.set(k, [p, p, p, p]);
      if (keys.length === 0 || k > keys[keys.length - 1]) keys.push(k);
      else keys.splice(lowerBound(keys, k), 0, k);
      return;
    }
    if (t < c[0][0]) c[0] = p;
    if (v < c[1][1]) c[1] = p;
    if (v > c[2][1]) c[2] = p;
    if (t >= c[3][0]) c[3] = p;
  };
  const coarsen = () => {
    const old = keys.map((k) => columns.get(k));
    columns = new Map();
    keys = [];
    columnMs *= 2;
    // The same origin: every old column lies inside one new column, so nothing is lost.
    for (const c of old) for (const [t, v] of unique(c)) put(t, v);
  };
  for (const [t, v] of reduced.data) put(t, v);

  return {
    /** A live point (not in the reduced data). */
    add(t, v) {
      count++;
      put(t, v);
      while (keys.length > maxColumns) coarsen();
    },
    /** The points to draw, in time order. */
    points() {
      cached ??= keys.flatMap((k) => unique(columns.get(k)));
      return cached;
    },
    get count() {
      return count;
    },
    get origin() {
      return origin;
    },
    get columnMs() {
      return columnMs;
    },
  };
}

/** A column's distinct points in time order. */
function unique(c) {
  const out = [];
  for (const p of c) if (!out.includes(p)) out.push(p);
  return out.sort((a, b) => a[0] - b[0]);
}

function lowerBound(sorted, k) {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The coarse curve's points outside [from, to] and the fine curve's inside: a zoomed-in chart. */
export function zoomed(coarse, fine, from, to) {
  const all = coarse.points();
  return [...all.filter((p) => p[0] < from), ...fine.points(), ...all.filter((p) => p[0] > to)];
}
