// BENCH_SERVER_ENV: more settings of the measured server, `NAME=value` pairs separated by spaces.
export function serverEnvOf(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split(/\s+/)
      .filter(Boolean)
      .map((pair) => {
        const at = pair.indexOf('=');
        if (at <= 0) throw new Error(`BENCH_SERVER_ENV: ${JSON.stringify(pair)} is not NAME=value`);
        return [pair.slice(0, at), pair.slice(at + 1)];
      }),
  );
}

/** An experiment server that serves only Suggestion (no persistence or early-stopping thread), on SQLite. */
export function suggestionOnlyEnv(
  kafkaBrokers: readonly string[],
  sqliteFile: string,
): Record<string, string> {
  return {
    KAFKA_BROKERS: kafkaBrokers.join(','),
    EXPERIMENT_SERVICES: 'suggestion',
    PERSISTENCE_WORKER: 'false',
    EARLY_STOPPING_WORKER: 'false',
    OBSERVATION_STORE: 'sqlite',
    SQLITE_FILE: sqliteFile,
  };
}
