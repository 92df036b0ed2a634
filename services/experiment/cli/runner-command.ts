// `experiment runner`: the wiring of one runner process (Kafka, the DBManager client, the runner)
// and its stop on SIGTERM or SIGINT, which gives its runs back.
import { hostname } from 'node:os';
import { createBus, createEventProducer, TOPICS } from '../../../shared/bus/index.ts';
import { systemClock } from '../../../shared/clock.ts';
import { createLifecycle } from '../../../shared/lifecycle.ts';
import { createLogger } from '../../../shared/logger.ts';
import { createGrpcObservationReporter } from '../runner/adapters/grpc-observation-reporter.ts';
import { startRunner } from '../runner/adapters/runner-service.ts';
import type { RunnerSettings } from '../settings.ts';

/** Report attempts while the DBManager is away (500 ms apart): a restart of it loses no value. */
const REPORT_ATTEMPTS = 120;

/** Runs until a signal stops it; resolves with the exit code. */
export async function runnerCommand(settings: RunnerSettings, runnerDir: string): Promise<number> {
  const host = hostname();
  const runnerId = `${host}-${process.pid}`;
  const logger = createLogger({ name: 'experiment-runner', level: settings.logLevel }).child({
    runner: runnerId,
  });
  const lifecycle = createLifecycle({
    logger,
    deadlineMs: settings.runnerStopGraceMs + settings.shutdownDeadlineMs,
  });
  const exitCode = new Promise<number>((resolve) => lifecycle.stopOnSignals(resolve));

  const bus = createBus({
    brokers: settings.kafkaBrokers,
    clientId: settings.kafkaClientId,
    client: settings.kafkaClient,
    failpoints: settings.kafkaFailpoints,
    logger,
  });
  lifecycle.onStop('kafka', () => bus.close());
  await bus.ensureTopics([TOPICS.trialAssignments, TOPICS.trialRuns, TOPICS.trialStatus, TOPICS.runners]);
  const producer = await createEventProducer(bus);
  lifecycle.onStop('producer', () => producer.disconnect());
  const reporter = createGrpcObservationReporter({
    address: settings.runnerDbManager,
    deadlineMs: settings.dbManagerDeadlineMs,
  });
  const runner = await startRunner({
    bus,
    producer,
    reporter,
    clock: systemClock,
    logger,
    identity: { runnerId, host, pid: process.pid, slots: settings.runnerSlots },
    groupId: settings.runnerGroup,
    heartbeatMs: settings.runnerHeartbeatMs,
    sessionTimeoutMs: settings.consumerSessionTimeoutMs,
    baseEnv: settings.trialEnv,
    runnerDir,
    stopGraceMs: settings.runnerStopGraceMs,
    filePollMs: settings.runnerFilePollMs,
    reportAttempts: REPORT_ATTEMPTS,
  });
  lifecycle.onStop('runner', () => runner.stop());
  await runner.joined;
  logger.info({ group: settings.runnerGroup, slots: settings.runnerSlots }, 'runner ready');
  runner.ended.catch((error: unknown) => {
    logger.error({ err: error }, 'the assignments consumer stopped');
    void lifecycle.stop('the assignments consumer stopped').then(() => process.exit(1));
  });
  return exitCode;
}
