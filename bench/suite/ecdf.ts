// The runtime ECDF as COCO draws it, pure: for targets f_opt + 10^k (k = 2, 1.8, …, −8), the
// share of (run, target) pairs reached within a number of evaluations, against log10(evals / D).
// One panel per sampler, ours solid and Optuna 5.0's dashed; returned as SVG text.

export interface Trajectory {
  readonly dims: number;
  /** Best regret after each evaluation. */
  readonly regrets: readonly number[];
}

export const TARGET_EXPONENTS = Array.from({ length: 51 }, (_, i) => 2 - 0.2 * i);

/** Points (log10 evals/D, share) of the step curve. */
export function ecdfPoints(runs: readonly Trajectory[]): [number, number][] {
  const hits: number[] = [];
  for (const run of runs) {
    for (const k of TARGET_EXPONENTS) {
      const at = run.regrets.findIndex((r) => r <= 10 ** k);
      if (at >= 0) hits.push(Math.log10((at + 1) / run.dims));
    }
  }
  hits.sort((a, b) => a - b);
  const total = runs.length * TARGET_EXPONENTS.length;
  return hits.map((x, i) => [x, (i + 1) / total]);
}

const WIDTH = 320;
const HEIGHT = 220;
const MARGIN = 36;

function path(points: readonly [number, number][], xMax: number): string {
  const sx = (x: number) => MARGIN + ((WIDTH - 2 * MARGIN) * Math.max(0, x + 1)) / (xMax + 1);
  const sy = (y: number) => HEIGHT - MARGIN - (HEIGHT - 2 * MARGIN) * y;
  let d = `M${sx(-1).toFixed(1)},${sy(0).toFixed(1)}`;
  let last = 0;
  // Thousands of steps share a tenth of a pixel: only the highest of each is drawn.
  points.forEach(([x, y], i) => {
    const next = points[i + 1];
    if (next && sx(next[0]).toFixed(1) === sx(x).toFixed(1)) return;
    d += ` H${sx(x).toFixed(1)} V${sy(y).toFixed(1)}`;
    last = y;
  });
  return `${d} H${sx(xMax).toFixed(1)} V${sy(last).toFixed(1)}`;
}

export function ecdfSvg(
  panels: readonly { sampler: string; ours: Trajectory[]; theirs: Trajectory[] }[],
): string {
  const xMax = Math.max(
    1,
    ...panels.flatMap((p) => [...p.ours, ...p.theirs].map((r) => Math.log10(r.regrets.length / r.dims))),
  );
  const parts = panels.map((panel, i) => {
    const frame = `<rect x="${MARGIN}" y="${MARGIN}" width="${WIDTH - 2 * MARGIN}" height="${HEIGHT - 2 * MARGIN}" fill="none" stroke="#999"/>`;
    const labels = `<text x="${WIDTH / 2}" y="20" text-anchor="middle" font-size="13">${panel.sampler}</text><text x="${WIDTH / 2}" y="${HEIGHT - 8}" text-anchor="middle" font-size="10">log10(evaluations / D), −1 … ${xMax.toFixed(1)}</text><text x="8" y="${HEIGHT / 2}" font-size="10" transform="rotate(-90 8 ${HEIGHT / 2})" text-anchor="middle">share of (run, target) pairs</text><text x="${MARGIN - 4}" y="${HEIGHT - MARGIN}" font-size="9" text-anchor="end">0</text><text x="${MARGIN - 4}" y="${MARGIN + 8}" font-size="9" text-anchor="end">1</text>`;
    const ours = `<path d="${path(ecdfPoints(panel.ours), xMax)}" fill="none" stroke="#1f77b4" stroke-width="2"/>`;
    const theirs = `<path d="${path(ecdfPoints(panel.theirs), xMax)}" fill="none" stroke="#d62728" stroke-width="2" stroke-dasharray="5 3"/>`;
    return `<g transform="translate(${i * WIDTH},0)">${frame}${labels}${ours}${theirs}</g>`;
  });
  const legend = `<text x="4" y="${HEIGHT + 14}" font-size="11">solid blue: ours · dashed red: Optuna 5.0's matching sampler · targets f_opt + 10^k, k = 2 … −8</text>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH * panels.length}" height="${HEIGHT + 20}" font-family="sans-serif"><title>ECDF of the BBOB runs, per sampler: ours against Optuna 5.0</title>${parts.join('')}${legend}</svg>\n`;
}
