// The two services of the side-by-side benchmark as child processes, and what one cell of load
// measures on a service: the generator's figures, the CPU time of the service's whole process tree
// per decision, and the largest RSS of the whole tree while the load runs.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { freePort } from '../../test/helpers/experiment-server.ts';
import { waitFor } from '../../test/helpers/wait-for.ts';
import type { Generator, LoadFigures } from './ghz-hey.ts';
import { CLK_TCK, cpuTicks, processTree, rssMb } from './process-stats.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const TOOLS = join(ROOT, '.bench-tools');

/** A Go tool in the gitignored .bench-tools/, built with `go install` when missing. */
export async function ensureTool(binary: string, module: string): Promise<string> {
  const path = join(TOOLS, binary);
  if (existsSync(path)) return path;
  process.stderr.write(`building ${binary}: go install ${module} into ${TOOLS}\n`);
  await run('go', ['install', module], { env: { ...process.env, GOBIN: TOOLS }, maxBuffer: 1 << 24 });
  return path;
}

export interface Service {
  /** baseline: another build of ours (BENCH_BASELINE), e.g. the tree before a change. */
  readonly name: 'ours' | 'reference' | 'baseline';
  readonly child: ChildProcess;
  readonly grpc: string;
  readonly http: number;
  stop(): Promise<void>;
}

export async function startService(
  name: Service['name'],
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<Service> {
  const [http, grpc, debug] = [await freePort(), await freePort(), await freePort()];
  const child = spawn(command, args, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      GRPC_HOST: '127.0.0.1',
      DEBUG_HOST: '127.0.0.1',
      PORT: String(http),
      GRPC_PORT: String(grpc),
      DEBUG_PORT: String(debug),
      USE_STATSD: 'false',
      LOG_LEVEL: 'warn',
      REDIS_SOCKET_TYPE: 'tcp',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString()).slice(-4000);
  });
  const reap = (): void => void child.kill('SIGKILL');
  process.once('exit', reap);
  await waitFor(`${name} to be healthy`, async () => {
    if (child.exitCode !== null) throw new Error(`${name} exited: ${stderr}`);
    const res = await fetch(`http://127.0.0.1:${http}/healthcheck`).catch(() => undefined);
    return res?.status === 200;
  });
  return {
    name,
    child,
    grpc: `127.0.0.1:${grpc}`,
    http,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      process.off('exit', reap);
    },
  };
}

/** RSS of the service's whole process tree now (every process, each counting all its threads). */
export async function treeRssMb(service: Service): Promise<number> {
  const each = await Promise.all((await processTree(service.child.pid!)).map(rssMb));
  return each.reduce((a, b) => a + b, 0);
}

export interface CellFigures extends LoadFigures {
  /** CPU time (user + system) of the whole process tree per decision. */
  cpuUsPerDecision: number;
  /** The largest RSS of the whole process tree while the load ran. */
  rssMb: number;
}

export async function measureCell(
  service: Service,
  generate: Generator,
  callers: number,
  timing: { seconds: number; warmupSeconds: number },
): Promise<CellFigures> {
  if (timing.warmupSeconds > 0) await generate(service, callers, timing.warmupSeconds);
  const pids = await processTree(service.child.pid!);
  const before = await cpuTicks(pids);
  let peak = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, await treeRssMb(service));
      await sleep(200);
    }
  })();
  const figures = await generate(service, callers, timing.seconds);
  sampling = false;
  await sampler;
  const cpuUs = ((await cpuTicks(await processTree(service.child.pid!))) - before) * (1e6 / CLK_TCK);
  return { ...figures, cpuUsPerDecision: cpuUs / Math.max(1, figures.decisions), rssMb: peak };
}
