// The h2-abuse bench's table (one row per pattern and server) and the goals of issue 39 beside
// the figures: the experiment service's legit p99 against envoyproxy/ratelimit's in the same run,
// its RSS growth per pattern and a minute after the last, and the rate limiter's figures kept.
import { loadavg } from 'node:os';
import type { AttackOutcome } from './attack.ts';
import type { LegitFigures } from './probe.ts';
import type { ServerName } from './servers.ts';

export interface Cell {
  readonly pattern: string;
  readonly server: ServerName;
  /** Waited before the pattern for the server's CPU to come back near idle (capped). */
  readonly quietMs: number;
  /** Then until the legitimate client's first SERVING; NaN when none came (`notReady`: what it got). */
  readonly readyMs: number;
  readonly notReady: string | undefined;
  readonly legit: LegitFigures;
  /** The bench's own event loop delay p99 during the pattern (the legitimate client's thread). */
  readonly benchLoopP99Ms: number;
  readonly rssBefore: number;
  readonly rssPeak: number;
  /** Once the pattern's connections are closed and the server had `afterMs` to settle. */
  readonly rssAfter: number;
  readonly cpuSeconds: number;
  readonly seconds: number;
  readonly outcome: AttackOutcome;
  /** The experiment service: events its handlers published from the pattern's start to "after". */
  readonly published: number | undefined;
}

export interface Settled {
  readonly server: ServerName;
  readonly rssStart: number;
  readonly rssEnd: number;
  readonly afterSeconds: number;
  /** CPU the server used in those seconds. */
  readonly cpuSeconds: number;
  /** Then until a new client's first SERVING; NaN when none came. */
  readonly servingMs: number;
  /** The experiment service: events its handlers published in the whole run. */
  readonly published: number | undefined;
}

/** Issue 39's goals; the rate limiter's are the figures it had (all OK, p99 ≤ 250 ms, RSS +41 MB at most). */
export const GOALS = { growthMb: 32, settledMb: 32, ratelimitP99Ms: 250, ratelimitGrowthMb: 41 } as const;

const print = (line: string): void => void process.stdout.write(`${line}\n`);
const mb = (n: number): string => n.toFixed(0);
const ms = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : '—');
const verdict = (met: boolean): string => (met ? 'met' : 'MISSED');
const count = (n: number): string =>
  n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e4 ? `${(n / 1e3).toFixed(0)}k` : String(n);

/** What the server did to the abusive connections, in a few words. */
export function fateOf(o: AttackOutcome): string {
  const goAways = Object.entries(o.goAways)
    .map(([code, n]) => `GOAWAY ${code} ×${count(n)}`)
    .join(', ');
  const parts = [
    `${count(o.connections)} conn.`,
    goAways || 'no GOAWAY',
    `closed ${count(o.closedByServer)}`,
  ];
  if (o.kept > 0) parts.push(`kept ${o.kept}`);
  if (o.refused > 0) parts.push(`refused ${count(o.refused)}`);
  return parts.join(', ');
}

const sent = (c: Cell): string => {
  const o = c.outcome;
  const reached = c.published === undefined ? '' : `; handlers published ${count(c.published)} events`;
  // A reset call is three frames (HEADERS, DATA, RST_STREAM); each connection also sent its SETTINGS.
  const calls =
    c.pattern === 'rapid-reset' ? ` (${count(Math.floor((o.framesSent - o.connections) / 3))} calls)` : '';
  return `${count(o.framesSent)} frames${calls}, ${(o.bytesSent / 1e6).toFixed(1)} MB; back: ${count(o.headersReceived)} HEADERS, ${count(o.resetsReceived)} RST${reached}`;
};

const waited = (c: Cell): string =>
  `${(c.quietMs / 1_000).toFixed(1)}, ` +
  (Number.isNaN(c.readyMs)
    ? `**no SERVING in 10 s** (${c.notReady?.split(',')[0]})`
    : (c.readyMs / 1_000).toFixed(1));

export function printTable(cells: readonly Cell[], header: string): void {
  print(
    `\n${header}; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  print(
    '| pattern | server | waited s: quiet, SERVING | legit p99 ms (p50, max; bench loop p99) | legit calls / failed | RSS MB before / peak / after (peak growth) | server CPU s (cores) | abusive connections: what the server did | sent by the pattern |',
  );
  print('|---|---|---|---|---|---|---|---|---|');
  for (const c of cells) {
    const l = c.legit;
    const failed = l.failures === 0 ? '0' : `**${l.failures}** (${l.firstFailure?.split(',')[0]})`;
    print(
      `| ${c.pattern} | ${c.server} | ${waited(c)} | ` +
        `${ms(l.p99Ms)} (${ms(l.p50Ms)}, ${ms(l.maxMs)}; ${ms(c.benchLoopP99Ms)}) | ${l.calls} / ${failed} | ` +
        `${mb(c.rssBefore)} / ${mb(c.rssPeak)} / ${mb(c.rssAfter)} (+${mb(c.rssPeak - c.rssBefore)}) | ` +
        `${c.cpuSeconds.toFixed(2)} (${(c.cpuSeconds / c.seconds).toFixed(2)}) | ${fateOf(c.outcome)} | ${sent(c)} |`,
    );
  }
}

/** What each pattern does, under the table. */
export function printLegend(patterns: readonly { readonly name: string; readonly title: string }[]): void {
  print('\nPatterns:');
  for (const p of patterns) print(`  ${p.name.padEnd(18)} ${p.title}`);
}

export function printSettled(settled: readonly Settled[]): void {
  print('\nA minute after the last pattern (whole process tree):');
  for (const s of settled) {
    const serving = Number.isNaN(s.servingMs) ? 'no SERVING in 10 s' : `SERVING in ${ms(s.servingMs)} ms`;
    print(
      `  ${s.server.padEnd(22)} RSS at the start ${mb(s.rssStart)} MB, ${s.afterSeconds} s after its last pattern ` +
        `${mb(s.rssEnd)} MB (${s.rssEnd >= s.rssStart ? '+' : ''}${mb(s.rssEnd - s.rssStart)}); ` +
        `CPU in those ${s.afterSeconds} s ${s.cpuSeconds.toFixed(1)} s; a new client: ${serving}` +
        (s.published === undefined
          ? ''
          : `; events its handlers published in the run: ${s.published.toLocaleString('en')}`),
    );
  }
}

/** How each server stopped, and the last lines a server that was unwell at the end logged. */
export function printStops(
  stops: readonly string[],
  lastWords: ReadonlyArray<readonly [string, string]>,
): void {
  print(`\nStopped (SIGTERM, SIGKILL after 15 s): ${stops.join('; ')}`);
  for (const [server, output] of lastWords) {
    const lines = output.trim().split('\n').filter(Boolean).slice(-6);
    print(`  ${server} logged last (LOG_LEVEL=warn)${lines.length === 0 ? ': nothing' : ':'}`);
    for (const line of lines) print(`    ${line.length > 300 ? `${line.slice(0, 300)}…` : line}`);
  }
}

const goal = (label: string, value: string, target: string, met: boolean): boolean => {
  print(`  ${label.padEnd(58)} ${value.padStart(24)}   goal ${target.padEnd(26)} ${verdict(met)}`);
  return met;
};

/** Prints every goal beside its figure; returns the names of those missed. */
export function printGoals(cells: readonly Cell[], settled: readonly Settled[]): string[] {
  const missed: string[] = [];
  const of = (server: ServerName, pattern: string) =>
    cells.find((c) => c.server === server && c.pattern === pattern);
  const patterns = [...new Set(cells.map((c) => c.pattern))];
  print('\nGoals (issue 39), experiment service:');
  for (const pattern of patterns) {
    const ours = of('experiment', pattern);
    const reference = of('envoyproxy/ratelimit', pattern);
    if (ours === undefined) continue;
    const checks: Array<[string, boolean]> = [];
    if (reference !== undefined)
      checks.push([
        'p99',
        goal(
          `${pattern}: legit p99 (envoyproxy/ratelimit's)`,
          `${ms(ours.legit.p99Ms)} ms (${ms(reference.legit.p99Ms)})`,
          '≤ envoyproxy/ratelimit',
          ours.legit.p99Ms <= reference.legit.p99Ms,
        ),
      ]);
    checks.push([
      'failures',
      goal(
        `${pattern}: legit calls failed`,
        `${ours.legit.failures} of ${ours.legit.calls}`,
        '0',
        ours.legit.failures === 0,
      ),
    ]);
    const growth = ours.rssPeak - ours.rssBefore;
    checks.push([
      'RSS',
      goal(
        `${pattern}: RSS growth (peak − before)`,
        `+${mb(growth)} MB`,
        `≤ ${GOALS.growthMb} MB`,
        growth <= GOALS.growthMb,
      ),
    ]);
    for (const [what, met] of checks) if (!met) missed.push(`experiment ${pattern} ${what}`);
  }
  const exp = settled.find((s) => s.server === 'experiment');
  if (exp !== undefined) {
    const drift = exp.rssEnd - exp.rssStart;
    if (
      !goal(
        `RSS ${exp.afterSeconds} s after the last pattern − at the start`,
        `${mb(exp.rssEnd)} − ${mb(exp.rssStart)} = ${drift >= 0 ? '+' : ''}${mb(drift)} MB`,
        `≤ ${GOALS.settledMb} MB`,
        drift <= GOALS.settledMb,
      )
    )
      missed.push('experiment RSS a minute after');
  }
  print('\nThe rate limiter keeps its figures (all legit OK, p99 ≤ 250 ms, RSS +41 MB at most):');
  for (const pattern of patterns) {
    const c = of('ratelimit', pattern);
    if (c === undefined) continue;
    const growth = c.rssPeak - c.rssBefore;
    const met =
      c.legit.failures === 0 && c.legit.p99Ms <= GOALS.ratelimitP99Ms && growth <= GOALS.ratelimitGrowthMb;
    goal(
      `${pattern}: failed, p99, RSS growth`,
      `${c.legit.failures}, ${ms(c.legit.p99Ms)} ms, +${mb(growth)} MB`,
      `0, ≤ ${GOALS.ratelimitP99Ms} ms, ≤ ${GOALS.ratelimitGrowthMb} MB`,
      met,
    );
    if (!met) missed.push(`ratelimit ${pattern}`);
  }
  print(missed.length === 0 ? '\nevery goal met' : `\ngoals missed: ${missed.join(', ')}`);
  return missed;
}
