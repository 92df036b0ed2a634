// `npm run -s experiment -- <command>`: the experiment CLI, the wiring of its programs (as main.ts
// is the server's). Reads its arguments and settings once; `runner` wires one runner process
// (Kafka, the DBManager client, the runner) and stops it on SIGTERM or SIGINT, giving its runs back.
import { hostname } from 'node:os';
import { createBus, createEventProducer } from '../../shared/bus/index.ts';
import { systemClock } from '../../shared/clock.ts';
import { toAppError } from '../../shared/errors.ts';
import { createLifecycle } from '../../shared/lifecycle.ts';
import { createLogger } from '../../shared/logger.ts';
import { SettingsError } from '../../shared/settings.ts';
import { parseCli, USAGE } from './cli/cli-args.ts';
import { runCommand } from './cli/run-command.ts';
import { EXIT_CODES } from './cli/run-summary.ts';
import { experimentBusNames } from './common/bus-names.ts';
import { createGrpcObservationReporter } from './runner/adapters/grpc-observation-reporter.ts';
import { startRunner } from './runner/adapters/runner-service.ts';
import { type RunnerSettings, readRunnerSettings } from './settings.ts';

/** Report attempts while the DBManager is away (500 ms apart): a restart of it loses no value. */
const REPORT_ATTEMPTS = 120;

/** Runs until a signal stops it; resolves with the exit code. */
async function runnerCommand(settings: RunnerSettings, runnerDir: string): Promise<number> {
  const { topics, groups } = experimentBusNames(settings);
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
  await bus.ensureTopics([topics.trialAssignments, topics.trialRuns, topics.trialStatus, topics.runners]);
  const producer = await createEventProducer(bus);
  lifecycle.onStop('producer', () => producer.disconnect());
  const reporter = createGrpcObservationReporter({
    address: settings.runnerDbManager,
    deadlineMs: settings.dbManagerDeadlineMs,
  });
  const runner = await startRunner({
    bus,
    producer,
    topics,
    reporter,
    clock: systemClock,
    logger,
    identity: { runnerId, host, pid: process.pid, slots: settings.runnerSlots },
    groupId: groups.runners,
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
  logger.info({ group: groups.runners, slots: settings.runnerSlots }, 'runner ready');
  runner.ended.catch((error: unknown) => {
    logger.error({ err: error }, 'the assignments consumer stopped');
    void lifecycle.stop('the assignments consumer stopped').then(() => process.exit(1));
  });
  return exitCode;
}

async function main(): Promise<number> {
  const parsed = parseCli(process.argv.slice(2));
  if (parsed.kind === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return EXIT_CODES.succeeded;
  }
  if (parsed.kind === 'error') {
    process.stderr.write(`experiment: ${parsed.message}\n${USAGE}\n`);
    return EXIT_CODES.refused;
  }
  const settings = readRunnerSettings(process.env);
  switch (parsed.options.command) {
    case 'runner':
      return runnerCommand(settings, process.cwd());
    case 'run':
      return runCommand(parsed.options, {
        cliFile: import.meta.filename,
        env: settings.trialEnv,
        out: (line) => process.stdout.write(`${line}\n`),
        err: (line) => process.stderr.write(`${line}\n`),
      });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message = error instanceof SettingsError ? error.message : toAppError(error).message;
    process.stderr.write(`experiment: ${message}\n`);
    process.exit(error instanceof SettingsError ? EXIT_CODES.refused : EXIT_CODES.unreachable);
  },
);
