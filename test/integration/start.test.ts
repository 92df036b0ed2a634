import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { portHolder } from '../../scripts/port-holder.ts';

const ROOT = join(import.meta.dirname, '..', '..');

describe('npm start', () => {
  let holder: Server;
  let port: number;
  beforeAll(async () => {
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    port = (holder.address() as { port: number }).port;
  });
  afterAll(() => holder.close());

  it('names the process that holds a port of a service and exits 1, before it builds or starts anything', () => {
    expect(portHolder(port)).toMatch(new RegExp(`^pid ${process.pid} \\(`));
    const run = spawnSync(process.execPath, [join(ROOT, 'scripts', 'start.ts')], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 180_000,
      // Every other port 0 (never checked): a running product holds the defaults.
      env: {
        ...process.env,
        INFRA_PROFILE: 'test',
        EXPERIMENT_HTTP_PORT: String(port),
        EXPERIMENT_GRPC_PORT: '0',
        EXPERIMENT_METRICS_PORT: '0',
        GRPC_PORT: '0',
        PORT: '0',
        DEBUG_PORT: '0',
      },
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(
      `start: experiment cannot listen on 127.0.0.1:${port} (EXPERIMENT_HTTP_PORT): the port is held by pid ${process.pid} (`,
    );
    expect(run.stdout).not.toContain('backbone is running');
  });

  it('tells a free port from a held one', () => {
    expect(portHolder(1)).toBeUndefined();
  });
});
