// The DBManager bench's figures: what one round measures on one store, and the table of medians
// printed beside each goal (issues 26 and 33) and Katib's figure measured on this machine.
import { percentile } from '../stats.ts';

export interface LoadFigures {
  readonly logsPerCall: number;
  readonly callsPerSecond: number;
  readonly logsPerSecond: number;
  readonly calls: number;
  readonly errors: number;
  readonly ackP50: number;
  readonly ackP99: number;
  readonly lagP50: number;
  readonly lagP99: number;
  readonly lagP100: number;
  readonly lagSamples: number;
  /** When the slowest reads' reports were acknowledged (s into the load) and how long they took (ms). */
  readonly lagSlowestAt: readonly (readonly [number, number])[];
  readonly lagErrors: number;
  /** Server CPU from the load's start until the persistence consumer committed its end. */
  readonly serverCpuUsPerLog: number;
  readonly serverCpuUsPerCall: number;
  /** The same, less what the server spends idle (measured before the loads) over the same time. */
  readonly netCpuUsPerLog: number;
  readonly netCpuUsPerCall: number;
  readonly idleCores: number;
  /** Cores used during the load: the server, the generator (this process), the whole machine. */
  readonly serverCores: number;
  readonly generatorCores: number;
  readonly machineCores: number;
  /** publish calls (gRPC reports and other events) per produce request of the server. */
  readonly callsPerProduceRequest: number;
}

export interface RoundFigures {
  readonly loadAverage: readonly number[];
  readonly bulk?: LoadFigures;
  readonly one?: LoadFigures;
  /** Until a read of the backlog's last trial answers (its partition applied). */
  readonly restartSeconds?: number;
  /** Until every partition of the backlog is applied. */
  readonly caughtUpSeconds?: number;
  readonly catchUpLogsPerSecond?: number;
  readonly otherRows: number;
  readonly readAllP50: number;
  readonly readAllP99: number;
  readonly readOneMetricP50: number;
  readonly readOneMetricP99: number;
  readonly rssIdleBefore: number;
  readonly rssIdleAfter: number;
  readonly rssPeak: number;
}

const print = (text: string): void => void process.stdout.write(`${text}\n`);
const ms = (value: number) => `${value.toFixed(1)} ms`;
const whole = (value: number) => Math.round(value).toLocaleString('en');
const us = (value: number) => `${value.toFixed(1)} µs`;

/** One load's figures, as measured (one round). */
export function printLoad(name: string, f: LoadFigures): void {
  const unit = f.logsPerCall === 1 ? 'reports' : 'logs';
  print(
    `  ${name}: ${whole(f.logsPerCall === 1 ? f.callsPerSecond : f.logsPerSecond)} ${unit}/s acknowledged ` +
      `(${f.calls} calls of ${f.logsPerCall} log${f.logsPerCall === 1 ? '' : 's'}, ${f.errors} failed)`,
  );
  print(`    ReportObservationLog ack p50 ${ms(f.ackP50)}, p99 ${ms(f.ackP99)}`);
  print(
    `    ack → queryable p50 ${ms(f.lagP50)}, p99 ${ms(f.lagP99)}, p100 ${ms(f.lagP100)} (n=${f.lagSamples}, ${f.lagErrors} refused)`,
  );
  print(
    `      slowest acknowledged at ${f.lagSlowestAt.map(([at, lag]) => `${at.toFixed(1)} s (${ms(lag)})`).join(', ')}`,
  );
  print(
    `    server CPU ${us(f.serverCpuUsPerLog)} per log, ${us(f.serverCpuUsPerCall)} per call ` +
      `(less its idle ${f.idleCores.toFixed(2)} cores: ${us(f.netCpuUsPerLog)} per log, ${us(f.netCpuUsPerCall)} per call); ` +
      `cores: server ${f.serverCores.toFixed(2)}, generator ${f.generatorCores.toFixed(2)} ` +
      `(${((100 * f.generatorCores) / Math.max(f.machineCores, 1e-9)).toFixed(0)}% of the machine's busy time), ` +
      `machine ${f.machineCores.toFixed(2)} busy; ${f.callsPerProduceRequest.toFixed(1)} calls per produce request`,
  );
}

const median = (rounds: readonly RoundFigures[], pick: (r: RoundFigures) => number | undefined): number =>
  percentile(
    rounds.map(pick).filter((v): v is number => v !== undefined),
    50,
  );

/** A figure beside its goal and Katib's. */
const goal = (label: string, value: string, met: boolean, target: string, katib: string) =>
  print(
    `  ${label.padEnd(46)} ${value.padStart(14)}   goal ${target.padEnd(16)} ${met ? 'met   ' : 'MISSED'}   Katib ${katib}`,
  );

/** The medians of every round, each beside its goal. */
export function printGoals(store: string, rounds: readonly RoundFigures[], largeTrialLogs: number): void {
  const m = (pick: (r: RoundFigures) => number | undefined) => median(rounds, pick);
  const loads = rounds.map((r) => r.loadAverage[0]!.toFixed(1)).join(', ');
  print(`\n[${store}] median of ${rounds.length} round(s) (1-minute load average at each start: ${loads})`);
  if (rounds[0]?.bulk) {
    const perCall = rounds[0].bulk.logsPerCall;
    const rate = m((r) => r.bulk?.logsPerSecond);
    goal(
      `acknowledged logs/s (${perCall} logs/call)`,
      whole(rate),
      rate >= 115_000,
      '≥ 115,000',
      '56.8k (MariaDB)',
    );
    const cpu = m((r) => r.bulk?.serverCpuUsPerLog);
    goal('server CPU per acknowledged log', us(cpu), cpu <= 6, '≤ 6 µs', '—');
    print(`    (less idle: ${us(m((r) => r.bulk?.netCpuUsPerLog))})`);
    const lag = m((r) => r.bulk?.lagP99);
    goal('ack → queryable p99', ms(lag), lag <= 1_000, '≤ 1,000 ms', '0.1–0.3 s (one read)');
    print(
      `  (report p50 / p99 ${ms(m((r) => r.bulk?.ackP50))} / ${ms(m((r) => r.bulk?.ackP99))}; generator ` +
        `${m((r) => r.bulk?.generatorCores).toFixed(2)} cores, server ${m((r) => r.bulk?.serverCores).toFixed(2)})`,
    );
  }
  if (rounds[0]?.one) {
    const rate = m((r) => r.one?.callsPerSecond);
    goal('one-log reports/s', whole(rate), rate >= 5_940, '≥ 5,940', '1,980');
    const p99 = m((r) => r.one?.ackP99);
    goal('one-log report p99', ms(p99), p99 <= 74.1, '≤ 74.1 ms', `74.1 ms (p50 23.4)`);
    print(`    (p50 ${ms(m((r) => r.one?.ackP50))})`);
    const cpu = m((r) => r.one?.serverCpuUsPerCall);
    goal('server CPU per one-log report', us(cpu), cpu <= 100, '≤ 100 µs', '—');
    print(`    (less idle: ${us(m((r) => r.one?.netCpuUsPerCall))})`);
    const lag = m((r) => r.one?.lagP99);
    goal('one-log ack → queryable p99', ms(lag), lag <= 1_000, '≤ 1,000 ms', '—');
    print(
      `  (generator ${m((r) => r.one?.generatorCores).toFixed(2)} cores, server ${m((r) => r.one?.serverCores).toFixed(2)})`,
    );
  }
  const restart = m((r) => r.restartSeconds);
  if (!Number.isNaN(restart)) {
    goal(
      "restart behind the backlog: the last trial's read answers after",
      `${restart.toFixed(1)} s`,
      restart <= 5,
      '≤ 5 s',
      '—',
    );
    const all = m((r) => r.caughtUpSeconds);
    goal(
      'restart behind the backlog: every read answers after',
      `${all.toFixed(1)} s`,
      all <= 5,
      '≤ 5 s',
      '—',
    );
    print(`  catch-up rate: ${whole(m((r) => r.catchUpLogsPerSecond))} logs/s`);
  }
  const read = m((r) => r.readAllP99);
  goal(
    `GetObservationLog ${whole(largeTrialLogs)} logs p99 (${whole(m((r) => r.otherRows))} other rows)`,
    ms(read),
    read <= 20,
    '≤ 20 ms',
    `p50 276 ms`,
  );
  print(
    `    (p50 ${ms(m((r) => r.readAllP50))}; one metric p50 ${ms(m((r) => r.readOneMetricP50))}, p99 ${ms(m((r) => r.readOneMetricP99))})`,
  );
  const peak = m((r) => r.rssPeak);
  goal('RSS under load (peak, every thread)', `${peak.toFixed(0)} MiB`, peak <= 150, '≤ 150 MiB', '21 MB');
  const before = m((r) => r.rssIdleBefore);
  const after = m((r) => r.rssIdleAfter);
  goal(
    'RSS idle (before / after the load)',
    `${before.toFixed(0)} / ${after.toFixed(0)} MiB`,
    Math.max(before, after) <= 80,
    '≤ 80 MiB',
    '21 MB',
  );
}
