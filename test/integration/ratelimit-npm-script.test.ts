// `npm run ratelimit` as the README gives it: local defaults (Redis over TCP on 127.0.0.1:6379, the
// example configuration, no statsd) that a test points at its own Redis and ports; a Redis that
// does not answer ends the start within seconds, naming Redis and its address; the listeners are
// logged at addresses a browser can open.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { freePort } from '../helpers/experiment-server.ts';
import { waitFor } from '../helpers/wait-for.ts';

const ROOT = join(import.meta.dirname, '..', '..');

interface NpmRun {
  output(): string;
  /** npm's exit code (the service's, when it ends by itself). */
  readonly exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

function npmRunRatelimit(env: Record<string, string>): NpmRun {
  // The product's own settings are left to the script: only the test's ports and servers are given.
  const child = spawn('npm', ['run', '--silent', 'ratelimit'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: npm, the shell it runs and the service are stopped together.
    detached: true,
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return {
    output: () => output,
    exited,
    stop() {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGTERM');
      return exited;
    },
  };
}

describe('npm run ratelimit', () => {
  const runs: NpmRun[] = [];
  afterEach(async () => {
    await Promise.all(runs.splice(0).map((run) => run.stop()));
  });

  const ports = async () => {
    const [http, grpc, debug] = [await freePort(), await freePort(), await freePort()];
    return {
      env: {
        PORT: String(http),
        GRPC_PORT: String(grpc),
        DEBUG_PORT: String(debug),
        CONFIG_KAFKA_PUBLISH: 'false',
      },
      http,
      debug,
    };
  };

  it('serves the example configuration with its defaults, logging addresses a browser can open', async () => {
    const { env, http, debug } = await ports();
    const run = npmRunRatelimit({ ...env, REDIS_URL: inject('infra').REDIS_URL });
    runs.push(run);
    await waitFor(
      'the service to answer its health check',
      async () =>
        (await fetch(`http://127.0.0.1:${http}/healthcheck`).catch(() => undefined))?.status === 200,
      { timeoutMs: 30_000 },
    );
    expect(await (await fetch(`http://127.0.0.1:${debug}/rlconfig`)).text()).toContain(
      'rl.generic_key_default',
    );
    await waitFor('the listeners to be logged', () => run.output().includes('gRPC server listening'));
    expect(run.output()).toContain(`address=http://127.0.0.1:${http}/ interfaces=all`);
    expect(run.output()).not.toContain('0.0.0.0');
  });

  it('ends within seconds when Redis does not answer, naming Redis and its address', async () => {
    const { env } = await ports();
    const nobody = await freePort();
    const run = npmRunRatelimit({ ...env, REDIS_URL: `127.0.0.1:${nobody}` });
    runs.push(run);
    const started = Date.now();
    expect(await run.exited).toBe(1);
    // REDIS_STARTUP_MAX_ELAPSED_TIME is 3 s: a minute only catches a start that never gives up.
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(run.output()).toContain(
      `cannot reach Redis at single 127.0.0.1:${nobody} within 3000 ms (REDIS_STARTUP_MAX_ELAPSED_TIME): connect ECONNREFUSED 127.0.0.1:${nobody}`,
    );
  });
});
