// The kvupgrade CLI's wiring: the only place that reads the environment, creates the Kafka and etcd
// clients and the member driver, and maps outcomes to exit codes.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { createBus, TOPICS } from '../../shared/bus/index.ts';
import { systemClock } from '../../shared/clock.ts';
import { AppError, toAppError } from '../../shared/errors.ts';
import { createLogger, type Logger } from '../../shared/logger.ts';
import { SettingsError } from '../../shared/settings.ts';
import { type LoadedCluster, loadClusterFile } from './adapters/cluster-file.ts';
import { createCommandTemplateDriver } from './adapters/command-template-driver.ts';
import { createEtcdHttp } from './adapters/etcd-http.ts';
import { binaryVersion, createSnapshotTool } from './adapters/etcd-tools.ts';
import { createLocalProcessDriver } from './adapters/local-process-driver.ts';
import { createProgressTopic, readProgressEvents } from './adapters/progress-topic.ts';
import { certificateFacts } from './adapters/tls.ts';
import { loadHistory, resumeUpgrade, runUpgrade } from './app/commands.ts';
import type { OrchestratorDeps } from './app/deps.ts';
import { gatherSteadyFacts } from './app/facts.ts';
import { ProgressNotReadError, ProgressNotRecordedError } from './app/progress-errors.ts';
import {
  jsonCheck,
  jsonEvent,
  jsonPlan,
  jsonResult,
  jsonStatus,
  renderEvent,
  renderPlan,
  renderStatus,
} from './app/render.ts';
import { rollback } from './app/rollback.ts';
import { type CliOptions, type Command, parseCli, USAGE } from './cli-args.ts';
import type { ClusterSpec } from './domain/cluster-spec.ts';
import { alreadyUpgraded } from './domain/history.ts';
import { IllegalTransitionError } from './domain/machine.ts';
import { evaluatePlan } from './domain/plan.ts';
import type { EtcdClient, MemberDriver } from './ports.ts';
import { readKvupgradeSettings } from './settings.ts';

/** 5: kv.upgrade-progress could not be written or read (Kafka): nothing unrecorded was done; resume once it answers. */
const EXIT = { ok: 0, failed: 1, usage: 2, refused: 3, confirm: 4, unrecorded: 5 } as const;
const out = (text: string) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
/** Set once the arguments are read: what the error handler prints. */
let json: { command: string; clusterFile: string; cluster: string | null } | undefined;
/** The cluster file, once read: what a refusal tells the user to look at. */
let clusterFile: string | undefined;

/**
 * How long a graceful close of the Kafka clients may take: a hung broker would hold it for the
 * client's request timeout (30 s), and the process exits right after anyway.
 */
const CLOSE_WITHIN_MS = 2000;
const closeWithin = (kafkaAnswers: boolean, closing: Promise<void>) =>
  Promise.race([closing.catch(() => {}), sleep(kafkaAnswers ? CLOSE_WITHIN_MS : 0)]);

/** What every command works with, once the arguments and the cluster file are read. */
interface CommandContext {
  readonly options: CliOptions;
  readonly asJson: boolean;
  readonly settings: ReturnType<typeof readKvupgradeSettings>;
  readonly logger: Logger;
  readonly spec: ClusterSpec;
  readonly credentials: LoadedCluster['credentials'];
  readonly certificates: ReturnType<typeof certificateFacts> | undefined;
  readonly etcd: EtcdClient;
  readonly driver: MemberDriver;
  /** Prints the text for people, or the result line for pipelines; returns the exit code. */
  finish(code: number, text: string, outcome: string, phase: string | null): number;
  /** The last line of a command that drove a run: the phase it ended in, exit 0 when that is a success. */
  ended(phase: string, successes: readonly string[]): number;
}

async function prepare(options: CliOptions): Promise<CommandContext> {
  const asJson = options.output === 'json';
  if (asJson) json = { command: options.command, clusterFile: options.cluster, cluster: null };
  const settings = readKvupgradeSettings(process.env);
  // stdout is for people; logs go to stderr, synchronously so none are lost at exit.
  const logger = createLogger(
    { name: 'kvupgrade', level: settings.logLevel },
    pino.destination({ fd: 2, sync: true }),
  );
  const { spec, credentials, tls } = await loadClusterFile(
    options.cluster,
    settings.invokedFrom || process.cwd(),
  );
  clusterFile = options.cluster;
  if (json) json.cluster = spec.name;
  const finish = (code: number, text: string, outcome: string, phase: string | null): number => {
    if (asJson)
      out(
        jsonResult({
          command: options.command,
          cluster: spec.name,
          clusterFile: options.cluster,
          outcome,
          phase,
          exitCode: code,
          message: text.trim(),
        }),
      );
    else out(text);
    return code;
  };
  const ended = (phase: string, successes: readonly string[]): number =>
    finish(
      successes.includes(phase) ? EXIT.ok : EXIT.failed,
      `\ncluster ${spec.name}: ${phase}`,
      phase,
      phase,
    );
  const etcd = createEtcdHttp({
    timeoutMs: spec.options.requestTimeoutMs,
    ...(credentials ? { credentials } : {}),
    ...(tls ? { tls } : {}),
  });
  const driver =
    spec.driver.kind === 'local'
      ? createLocalProcessDriver({
          runDir: spec.driver.runDir,
          etcdutl: spec.binaries.etcdutl,
          clock: systemClock,
        })
      : createCommandTemplateDriver({ spec: spec.driver, clock: systemClock });
  const certificates = tls ? certificateFacts(tls) : undefined;
  return { options, asJson, settings, logger, spec, credentials, certificates, etcd, driver, finish, ended };
}

async function plan(ctx: CommandContext): Promise<number> {
  const { spec, etcd, driver, certificates, asJson } = ctx;
  const facts = await gatherSteadyFacts(spec, etcd, {
    driver,
    binaryVersion,
    clock: systemClock,
    sleep: (ms: number) => sleep(ms),
    onMoment: (message: string) => process.stderr.write(`kvupgrade: ${message}\n`),
    ...(certificates ? { certificates } : {}),
  });
  const result = evaluatePlan(spec, facts, { allowAuth: ctx.options.allowAuth });
  const code = result.outcome === 'refuse' ? EXIT.refused : EXIT.ok;
  if (!asJson) {
    out(renderPlan(spec, result));
    return code;
  }
  for (const v of result.verdicts) out(jsonCheck(v));
  out(jsonPlan(spec, result));
  return ctx.finish(code, `plan: ${result.outcome}`, result.outcome, null);
}

const openBus = (ctx: CommandContext) =>
  createBus({
    brokers: ctx.settings.kafkaBrokers,
    clientId: `${ctx.settings.kafkaClientId}-kvupgrade`,
    client: ctx.settings.kafkaClient,
    failpoints: ctx.settings.kafkaFailpoints,
    logger: ctx.logger,
  });

async function status(ctx: CommandContext): Promise<number> {
  const { spec, etcd, driver } = ctx;
  const bus = openBus(ctx);
  try {
    const topic = TOPICS.upgradeProgress.name;
    const { standing, events } = await loadHistory({
      spec,
      etcd,
      driver,
      progress: { read: (cluster) => readProgressEvents(bus, topic, cluster) },
    });
    if (!ctx.asJson) {
      out(renderStatus(spec.name, standing, events));
      return EXIT.ok;
    }
    out(jsonStatus(spec.name, standing, events));
    const phase = standing.current?.state.phase ?? 'idle';
    return ctx.finish(EXIT.ok, `cluster ${spec.name}: ${phase}`, phase, phase);
  } finally {
    await closeWithin(bus.link.up, bus.close());
  }
}

/** A command that records on kv.upgrade-progress: the orchestrator's dependencies, closed after it. */
async function recording(
  ctx: CommandContext,
  drive: (deps: OrchestratorDeps) => Promise<number>,
): Promise<number> {
  const { spec, asJson } = ctx;
  const bus = openBus(ctx);
  const progress = createProgressTopic({ bus, topic: TOPICS.upgradeProgress });
  try {
    return await drive({
      spec,
      etcd: ctx.etcd,
      driver: ctx.driver,
      snapshots: createSnapshotTool({
        etcdctl: spec.binaries.etcdctl,
        etcdutl: spec.binaries.etcdutl,
        timeoutMs: 120_000,
        ...(ctx.credentials ? { credentials: ctx.credentials } : {}),
        ...(spec.tls ? { tls: spec.tls } : {}),
      }),
      binaryVersion,
      ...(ctx.certificates ? { certificates: ctx.certificates } : {}),
      progress,
      clock: systemClock,
      logger: ctx.logger,
      events: { session: randomUUID(), command: ctx.options.command, newId: randomUUID },
      sleep: (ms: number) => sleep(ms),
      onEvent: (event) => out(asJson ? jsonEvent(event) : renderEvent(event)),
      onNotice: (message: string) => process.stderr.write(`kvupgrade: ${message}\n`),
    });
  } finally {
    await closeWithin(
      bus.link.up,
      progress.close().then(() => bus.close()),
    );
  }
}

/** Where a run or resume may end well: done, or stopped between hops when the file asks for it. */
const upgradeSuccesses = (ctx: CommandContext) =>
  ctx.spec.options.pauseBetweenHops ? ['completed', 'between-hops'] : ['completed'];

const run = (ctx: CommandContext) =>
  recording(ctx, async (deps) => {
    const { spec } = ctx;
    const outcome = await runUpgrade(deps, {
      allowAuth: ctx.options.allowAuth,
      runId: randomUUID().slice(0, 8),
    });
    if (outcome.kind === 'already-upgraded') {
      const text = alreadyUpgraded(spec.name, outcome.versions, outcome.upgradedBy);
      return ctx.finish(EXIT.ok, text, 'already-upgraded', outcome.upgradedBy?.state.phase ?? null);
    }
    if (outcome.kind === 'refused') {
      if (!ctx.asJson) {
        out(renderPlan(spec, outcome.plan));
        return EXIT.refused;
      }
      out(jsonPlan(spec, outcome.plan));
      return ctx.finish(EXIT.refused, 'run: refused', 'refused', null);
    }
    return ctx.ended(outcome.state.phase, upgradeSuccesses(ctx));
  });

const resume = (ctx: CommandContext) =>
  recording(ctx, async (deps) => {
    const outcome = await resumeUpgrade(deps);
    if (!outcome.resumed) return ctx.finish(EXIT.ok, outcome.reason, 'nothing-to-resume', outcome.phase);
    return ctx.ended(outcome.state.phase, [
      ...upgradeSuccesses(ctx),
      'rolled-back',
      'restored',
      'downgraded',
    ]);
  });

const rollbackCommand = (ctx: CommandContext) =>
  recording(ctx, async (deps) => {
    const outcome = await rollback(deps, { confirmed: ctx.options.yes });
    if (outcome.kind === 'refused') return ctx.finish(EXIT.refused, outcome.reason, 'refused', null);
    if (outcome.kind === 'nothing')
      return ctx.finish(EXIT.ok, outcome.reason, 'nothing-to-roll-back', outcome.state.phase);
    if (outcome.kind === 'confirm')
      return ctx.finish(EXIT.confirm, outcome.loss, 'confirmation-needed', outcome.state.phase);
    return ctx.ended(outcome.state.phase, ['rolled-back', 'restored', 'downgraded']);
  });

/** Every command of the CLI, by name. */
const HANDLERS: Record<Command, (ctx: CommandContext) => Promise<number>> = {
  plan,
  status,
  run,
  resume,
  rollback: rollbackCommand,
};

async function main(): Promise<number> {
  const parsed = parseCli(process.argv.slice(2));
  if (parsed.kind === 'help') {
    out(USAGE);
    return EXIT.ok;
  }
  if (parsed.kind === 'error') {
    process.stderr.write(`kvupgrade: ${parsed.message}\n${USAGE}\n`);
    return EXIT.usage;
  }
  return HANDLERS[parsed.options.command](await prepare(parsed.options));
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const appError = error instanceof SettingsError ? undefined : toAppError(error);
    // The state machine's own words ("x is not allowed in phase y") are for the code, not for people.
    const unrecorded = error instanceof ProgressNotRecordedError || error instanceof ProgressNotReadError;
    const message =
      error instanceof SettingsError
        ? error.message
        : error instanceof IllegalTransitionError
          ? `this step does not follow from the run recorded on kv.upgrade-progress (another kvupgrade may be working on the cluster); nothing more was done: see kvupgrade status --cluster ${clusterFile}`
          : error instanceof ProgressNotRecordedError
            ? `${error.message}\n  once Kafka answers, resume continues from the last recorded step: kvupgrade resume --cluster ${clusterFile}`
            : error instanceof ProgressNotReadError
              ? `${error.message}; run it again once Kafka answers`
              : appError!.message;
    const code =
      error instanceof SettingsError || (appError instanceof AppError && appError.code === 'INVALID_ARGUMENT')
        ? EXIT.usage
        : unrecorded
          ? EXIT.unrecorded
          : EXIT.failed;
    process.stderr.write(`kvupgrade: ${message}\n`);
    if (json)
      out(
        jsonResult({
          command: json.command,
          cluster: json.cluster,
          clusterFile: json.clusterFile,
          outcome: unrecorded ? 'not-recorded' : 'error',
          phase: null,
          exitCode: code,
          message,
        }),
      );
    process.exit(code);
  },
);
