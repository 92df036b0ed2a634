// The curve decimation of the trial page's charts, a module of its own so that it can be tested
// without a browser.

/**
 * At most a few thousand of a curve's points for the chart: the first and the last (so the axis keeps
 * the whole range), the lowest and highest of each of 1,500 slices of the zoomed-in window, and of
 * 100 slices on each side of it. Drawing stays fast with any number of points, and no peak is lost.
 */
export function decimate(points, zoom) {
  const n = points.length;
  if (n <= 4_000) return points;
  const first = points[0][0];
  const span = points[n - 1][0] - first;
  const from = lowerBound(points, first + (span * zoom.start) / 100);
  const to = lowerBound(points, first + (span * zoom.end) / 100 + 1e-9);
  const out = [points[0], ...extremes(points, 0, from, 100), ...extremes(points, from, to, 1_500)];
  return [...out, ...extremes(points, to, n, 100), points[n - 1]];
}

function lowerBound(points, t) {
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (points[mid][0] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function extremes(points, from, to, slices) {
  const out = [];
  const size = Math.max(1, Math.ceil((to - from) / slices));
  for (let start = from; start < to; start += size) {
    const end = Math.min(to, start + size);
    let lo = start;
    let hi = start;
    for (let k = start + 1; k < end; k++) {
      if (points[k][1] < points[lo][1]) lo = k;
      if (points[k][1] > points[hi][1]) hi = k;
    }
    if (lo === hi) out.push(points[lo]);
    else out.push(points[Math.min(lo, hi)], points[Math.max(lo, hi)]);
  }
  return out;
}
