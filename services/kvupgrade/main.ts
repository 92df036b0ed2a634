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
import { createSnapshotTool } from './adapters/etcd-tools.ts';
import { createLocalProcessDriver } from './adapters/local-process-driver.ts';
import { createProgressTopic, readProgressEvents } from './adapters/progress-topic.ts';
import { certificateFacts, loadTls } from './adapters/tls.ts';
import { loadState, resumeUpgrade, rollback, runUpgrade } from './app/commands.ts';
import { gatherFacts } from './app/facts.ts';
import { renderEvent, renderPlan, renderStatus } from './app/render.ts';
import { parseCli, USAGE } from './cli-args.ts';
import { evaluatePlan } from './domain/plan.ts';
import { readKvupgradeSettings } from './settings.ts';

const EXIT = { ok: 0, failed: 1, usage: 2, refused: 3, confirm: 4 } as const;
const out = (text: string) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);

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
  const settings = readKvupgradeSettings(process.env);
  // stdout is for people; logs go to stderr, synchronously so none are lost at exit.
  const logger = createLogger(
    { name: 'kvupgrade', level: settings.logLevel },
    pino.destination({ fd: 2, sync: true }),
  );
  const spec = await loadClusterFile(options.cluster);
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
      now: clock.now(),
      ...(certificates ? { certificates } : {}),
    });
    const plan = evaluatePlan(spec, facts, { allowAuth: options.allowAuth });
    out(renderPlan(spec, plan));
    return plan.outcome === 'refuse' ? EXIT.refused : EXIT.ok;
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
      out(renderStatus(state, events));
      return EXIT.ok;
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
      ...(certificates ? { certificates } : {}),
      progress,
      clock,
      logger,
      events: { session: randomUUID(), command: options.command, newId: randomUUID },
      sleep: (ms: number) => sleep(ms),
      onEvent: (event: Parameters<typeof renderEvent>[0]) => out(renderEvent(event)),
    };
    switch (options.command) {
      case 'run': {
        const outcome = await runUpgrade(deps, {
          allowAuth: options.allowAuth,
          runId: randomUUID().slice(0, 8),
        });
        if (outcome.kind !== 'finished') {
          out(renderPlan(spec, outcome.plan));
          return outcome.kind === 'refused' ? EXIT.refused : EXIT.ok;
        }
        out(`\ncluster ${spec.name}: ${outcome.state.phase}`);
        return outcome.state.phase === 'completed' ? EXIT.ok : EXIT.failed;
      }
      case 'resume': {
        const { resumed, state } = await resumeUpgrade(deps);
        out(
          resumed
            ? `\ncluster ${spec.name}: ${state.phase}`
            : `nothing to resume: cluster ${spec.name} is ${state.phase}`,
        );
        return !resumed || state.phase === 'completed' ? EXIT.ok : EXIT.failed;
      }
      case 'rollback': {
        const outcome = await rollback(deps, { confirmed: options.yes });
        if (outcome.kind === 'nothing') {
          out(outcome.reason);
          return EXIT.ok;
        }
        if (outcome.kind === 'confirm') {
          out(outcome.loss);
          return EXIT.confirm;
        }
        out(`\ncluster ${spec.name}: ${outcome.state.phase}`);
        return outcome.state.phase === 'rolled-back' || outcome.state.phase === 'restored'
          ? EXIT.ok
          : EXIT.failed;
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
    if (error instanceof SettingsError) {
      process.stderr.write(`kvupgrade: ${error.message}\n`);
      process.exit(EXIT.usage);
    }
    const appError = toAppError(error);
    process.stderr.write(`kvupgrade: ${appError.message}\n`);
    process.exit(
      appError instanceof AppError && appError.code === 'INVALID_ARGUMENT' ? EXIT.usage : EXIT.failed,
    );
  },
);
