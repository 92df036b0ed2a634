// The kvupgrade CLI's wiring: the only place that reads the environment, creates the Kafka and etcd
// clients and the member driver, and maps outcomes to exit codes.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { createBus, createEventProducer, TOPICS } from '../../shared/bus/index.ts';
import { systemClock } from '../../shared/clock.ts';
import { AppError, toAppError } from '../../shared/errors.ts';
import { createLogger } from '../../shared/logger.ts';
import { SettingsError } from '../../shared/settings.ts';
import { loadClusterFile, readPassword } from './adapters/cluster-file.ts';
import { createCommandTemplateDriver } from './adapters/command-template-driver.ts';
import { createEtcdHttp } from './adapters/etcd-http.ts';
import { binaryVersion, createSnapshotTool } from './adapters/etcd-tools.ts';
import { createLocalProcessDriver } from './adapters/local-process-driver.ts';
import { createProgressTopic, readProgressEvents } from './adapters/progress-topic.ts';
import { certificateFacts, loadTls } from './adapters/tls.ts';
import { loadState, resumeUpgrade, rollback, runUpgrade } from './app/commands.ts';
import { gatherFacts } from './app/facts.ts';
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
import { parseCli, USAGE } from './cli-args.ts';
import { evaluatePlan } from './domain/plan.ts';
import { readKvupgradeSettings } from './settings.ts';

const EXIT = { ok: 0, failed: 1, usage: 2, refused: 3, confirm: 4 } as const;
const out = (text: string) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
/** Set once the arguments are read: what the error handler prints. */
let json: { command: string; clusterFile: string; cluster: string | null } | undefined;

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
  const spec = await loadClusterFile(options.cluster);
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
  const credentials = spec.auth
    ? { user: spec.auth.user, password: await readPassword(spec.auth.passwordFile) }
    : undefined;
  const tls = spec.tls ? await loadTls(spec.tls) : undefined;
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
      const { state, events } = await loadState(
        { read: (cluster) => readProgressEvents(bus, topic, cluster) },
        spec.name,
      );
      if (!asJson) {
        out(renderStatus(state, events));
        return EXIT.ok;
      }
      out(jsonStatus(state, events));
      return finish(EXIT.ok, `cluster ${spec.name}: ${state.phase}`, state.phase, state.phase);
    } finally {
      await bus.close();
    }
  }

  // The producer gets ready while the events and the cluster are read; the first publish waits for it.
  const producer = (async () => {
    await bus.ensureTopics([TOPICS.upgradeProgress]);
    return createEventProducer(bus);
  })();
  producer.catch(() => {}); // observed by the first publish, or below
  try {
    const progress = createProgressTopic({ bus, producer, topic });
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
    };
    switch (options.command) {
      case 'run': {
        const outcome = await runUpgrade(deps, {
          allowAuth: options.allowAuth,
          runId: randomUUID().slice(0, 8),
        });
        if (outcome.kind !== 'finished') {
          const code = outcome.kind === 'refused' ? EXIT.refused : EXIT.ok;
          if (!asJson) {
            out(renderPlan(spec, outcome.plan));
            return code;
          }
          out(jsonPlan(spec, outcome.plan));
          return finish(code, `run: ${outcome.kind}`, outcome.kind, null);
        }
        const phase = outcome.state.phase;
        return finish(
          phase === 'completed' ? EXIT.ok : EXIT.failed,
          `\ncluster ${spec.name}: ${phase}`,
          phase,
          phase,
        );
      }
      case 'resume': {
        const { resumed, state } = await resumeUpgrade(deps);
        return finish(
          !resumed || state.phase === 'completed' ? EXIT.ok : EXIT.failed,
          resumed
            ? `\ncluster ${spec.name}: ${state.phase}`
            : `nothing to resume: cluster ${spec.name} is ${state.phase}`,
          resumed ? state.phase : 'nothing-to-resume',
          state.phase,
        );
      }
      case 'rollback': {
        const outcome = await rollback(deps, { confirmed: options.yes });
        if (outcome.kind === 'nothing')
          return finish(EXIT.ok, outcome.reason, 'nothing-to-roll-back', outcome.state.phase);
        if (outcome.kind === 'confirm')
          return finish(EXIT.confirm, outcome.loss, 'confirmation-needed', outcome.state.phase);
        const phase = outcome.state.phase;
        return finish(
          phase === 'rolled-back' || phase === 'restored' ? EXIT.ok : EXIT.failed,
          `\ncluster ${spec.name}: ${phase}`,
          phase,
          phase,
        );
      }
    }
  } finally {
    await producer.then((p) => p.disconnect()).catch(() => {});
    await bus.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const appError = error instanceof SettingsError ? undefined : toAppError(error);
    const message = error instanceof SettingsError ? error.message : appError!.message;
    const code =
      error instanceof SettingsError || (appError instanceof AppError && appError.code === 'INVALID_ARGUMENT')
        ? EXIT.usage
        : EXIT.failed;
    process.stderr.write(`kvupgrade: ${message}\n`);
    if (json)
      out(
        jsonResult({
          command: json.command,
          cluster: json.cluster,
          clusterFile: json.clusterFile,
          outcome: 'error',
          phase: null,
          exitCode: code,
          message,
        }),
      );
    process.exit(code);
  },
);
