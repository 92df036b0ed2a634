// The kvupgrade CLI's wiring: the only place that reads the environment, creates the Kafka and etcd
// clients and the member driver, and maps outcomes to exit codes.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { createBus, TOPICS } from '../../shared/bus/index.ts';
import { systemClock } from '../../shared/clock.ts';
import { AppError, toAppError } from '../../shared/errors.ts';
import { createLogger } from '../../shared/logger.ts';
import { SettingsError } from '../../shared/settings.ts';
import { loadClusterFile } from './adapters/cluster-file.ts';
import { createCommandTemplateDriver } from './adapters/command-template-driver.ts';
import { createEtcdHttp } from './adapters/etcd-http.ts';
import { binaryVersion, createSnapshotTool } from './adapters/etcd-tools.ts';
import { createLocalProcessDriver } from './adapters/local-process-driver.ts';
import { createProgressTopic, readProgressEvents } from './adapters/progress-topic.ts';
import { certificateFacts } from './adapters/tls.ts';
import { loadHistory, resumeUpgrade, runUpgrade } from './app/commands.ts';
import { gatherFacts } from './app/facts.ts';
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
import { parseCli, USAGE } from './cli-args.ts';
import { alreadyUpgraded } from './domain/history.ts';
import { IllegalTransitionError } from './domain/machine.ts';
import { evaluatePlan } from './domain/plan.ts';
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
  const { options } = parsed;
  if (options.output === 'json')
    json = { command: options.command, clusterFile: options.cluster, cluster: null };
  const asJson = options.output === 'json';
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
  /** Prints the text for people, or the result line for pipelines; returns the exit code. */
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
  /** The last line of a command that drove a run: the phase it ended in, exit 0 when that is a success. */
  const ended = (phase: string, successes: readonly string[]): number =>
    finish(
      successes.includes(phase) ? EXIT.ok : EXIT.failed,
      `\ncluster ${spec.name}: ${phase}`,
      phase,
      phase,
    );
  const certificates = tls ? certificateFacts(tls) : undefined;
  const etcd = createEtcdHttp({
    timeoutMs: spec.options.requestTimeoutMs,
    ...(credentials ? { credentials } : {}),
    ...(tls ? { tls } : {}),
  });
  const clock = systemClock;
  const driver =
    spec.driver.kind === 'local'
      ? createLocalProcessDriver({ runDir: spec.driver.runDir, etcdutl: spec.binaries.etcdutl, clock })
      : createCommandTemplateDriver({ spec: spec.driver, clock });

  if (options.command === 'plan') {
    const facts = await gatherFacts(spec, etcd, {
      driver,
      binaryVersion,
      now: clock.now(),
      ...(certificates ? { certificates } : {}),
    });
    const plan = evaluatePlan(spec, facts, { allowAuth: options.allowAuth });
    if (!asJson) {
      out(renderPlan(spec, plan));
      return plan.outcome === 'refuse' ? EXIT.refused : EXIT.ok;
    }
    for (const v of plan.verdicts) out(jsonCheck(v));
    out(jsonPlan(spec, plan));
    const code = plan.outcome === 'refuse' ? EXIT.refused : EXIT.ok;
    return finish(code, `plan: ${plan.outcome}`, plan.outcome, null);
  }

  const bus = createBus({
    brokers: settings.kafkaBrokers,
    clientId: `${settings.kafkaClientId}-kvupgrade`,
    client: settings.kafkaClient,
    logger,
  });
  const topic = TOPICS.upgradeProgress.name;
  if (options.command === 'status') {
    try {
      const { standing, events } = await loadHistory({
        spec,
        etcd,
        driver,
        progress: { read: (cluster) => readProgressEvents(bus, topic, cluster) },
      });
      if (!asJson) {
        out(renderStatus(spec.name, standing, events));
        return EXIT.ok;
      }
      out(jsonStatus(spec.name, standing, events));
      const phase = standing.current?.state.phase ?? 'idle';
      return finish(EXIT.ok, `cluster ${spec.name}: ${phase}`, phase, phase);
    } finally {
      await closeWithin(bus.link.up, bus.close());
    }
  }

  const progress = createProgressTopic({ bus, topic: TOPICS.upgradeProgress });
  try {
    const deps = {
      spec,
      etcd,
      driver,
      snapshots: createSnapshotTool({
        etcdctl: spec.binaries.etcdctl,
        etcdutl: spec.binaries.etcdutl,
        timeoutMs: 120_000,
        ...(credentials ? { credentials } : {}),
        ...(spec.tls ? { tls: spec.tls } : {}),
      }),
      binaryVersion,
      ...(certificates ? { certificates } : {}),
      progress,
      clock,
      logger,
      events: { session: randomUUID(), command: options.command, newId: randomUUID },
      sleep: (ms: number) => sleep(ms),
      onEvent: (event: Parameters<typeof renderEvent>[0]) =>
        out(asJson ? jsonEvent(event) : renderEvent(event)),
      onNotice: (message: string) => process.stderr.write(`kvupgrade: ${message}\n`),
    };
    switch (options.command) {
      case 'run': {
        const outcome = await runUpgrade(deps, {
          allowAuth: options.allowAuth,
          runId: randomUUID().slice(0, 8),
        });
        if (outcome.kind === 'already-upgraded') {
          const text = alreadyUpgraded(spec.name, outcome.observed.versions, outcome.upgradedBy);
          return finish(EXIT.ok, text, 'already-upgraded', outcome.upgradedBy?.state.phase ?? null);
        }
        if (outcome.kind === 'refused') {
          if (!asJson) {
            out(renderPlan(spec, outcome.plan));
            return EXIT.refused;
          }
          out(jsonPlan(spec, outcome.plan));
          return finish(EXIT.refused, 'run: refused', 'refused', null);
        }
        return ended(outcome.state.phase, ['completed']);
      }
      case 'resume': {
        const outcome = await resumeUpgrade(deps);
        if (!outcome.resumed) return finish(EXIT.ok, outcome.reason, 'nothing-to-resume', outcome.phase);
        return ended(outcome.state.phase, ['completed']);
      }
      case 'rollback': {
        const outcome = await rollback(deps, { confirmed: options.yes });
        if (outcome.kind === 'refused') return finish(EXIT.refused, outcome.reason, 'refused', null);
        if (outcome.kind === 'nothing')
          return finish(EXIT.ok, outcome.reason, 'nothing-to-roll-back', outcome.state.phase);
        if (outcome.kind === 'confirm')
          return finish(EXIT.confirm, outcome.loss, 'confirmation-needed', outcome.state.phase);
        return ended(outcome.state.phase, ['rolled-back', 'restored']);
      }
    }
  } finally {
    await closeWithin(
      bus.link.up,
      progress.close().then(() => bus.close()),
    );
  }
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
