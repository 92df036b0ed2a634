import pino from 'pino';
import { createBus } from '../../shared/bus/index.ts';
import { createLogger } from '../../shared/logger.ts';
import { readSettings, SettingsError, type SettingsOf } from '../../shared/settings.ts';
import { parseReplayArgs, USAGE } from './args.ts';
import { replay, streamWriter } from './replay.ts';
import { replaySettings } from './settings.ts';

/** How long a stop (signal, end of input) may take before the process exits anyway. */
const STOP_DEADLINE_MS = 15_000;

async function flushStdout(): Promise<void> {
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
}

async function main(): Promise<number> {
  const parsed = parseReplayArgs(process.argv.slice(2));
  if (parsed.kind === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (parsed.kind === 'error') {
    process.stderr.write(`replay: ${parsed.message}\n${USAGE}\n`);
    return 2;
  }
  const { options } = parsed;

  let settings: SettingsOf<typeof replaySettings>;
  try {
    // --brokers wins over KAFKA_BROKERS, so a bad KAFKA_BROKERS does not matter then.
    const env = options.brokers ? { ...process.env, KAFKA_BROKERS: options.brokers.join(',') } : process.env;
    settings = readSettings(replaySettings, env);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    process.stderr.write(`replay: ${error.message}\n`);
    return 2;
  }

  // stdout holds only records: logs go to stderr, synchronously so none are lost at exit.
  const logger = createLogger(
    { name: 'replay', level: settings.logLevel },
    pino.destination({ fd: 2, sync: true }),
  );
  const bus = createBus({
    brokers: settings.kafkaBrokers,
    clientId: `${settings.kafkaClientId}-replay`,
    client: settings.kafkaClient,
    failpoints: settings.kafkaFailpoints,
    logger,
  });

  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      logger.info({ signal }, 'stopping');
      setTimeout(() => {
        logger.error({ deadlineMs: STOP_DEADLINE_MS }, 'did not stop in time');
        process.exit(1);
      }, STOP_DEADLINE_MS).unref();
      stop.abort();
    });
  }

  const outcome = await replay({
    bus,
    options,
    out: streamWriter(process.stdout),
    logger,
    signal: stop.signal,
  }).finally(() => bus.close());
  if (outcome.kind === 'missing-topic') {
    process.stderr.write(`replay: topic "${options.topic}" does not exist\n`);
    return 2;
  }
  if (outcome.undecodable > 0) {
    logger.warn(
      { undecodable: outcome.undecodable, printed: outcome.printed },
      'some records did not decode',
    );
  }
  return 0;
}

main().then(
  async (code) => {
    await flushStdout();
    process.exit(code);
  },
  async (error: unknown) => {
    // A reader that went away (`replay ... | head`) is not a failure.
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') process.exit(0);
    process.stderr.write(`replay: ${(error as Error).message ?? String(error)}\n`);
    process.exit(1);
  },
);
