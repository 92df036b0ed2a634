// GetSuggestions latency through gRPC as a Katib controller sees it: batch-1 loops of 200 trials
// on one problem, each call timed by the number of completed trials it carries, the calls at
// n−2…n+2 trials counting for n ∈ {10, 50, 100, 200}. Beside ours, Katib's goptuna suggestion
// service (Go, the fastest of Katib's own, built from Katib's source: `cmd/suggestion/goptuna`)
// when its binary is given: it keeps one study per process, so every loop gets a fresh process.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { runLoop, type Transport } from './driver.ts';
import type { Problem } from './problems.ts';
import { grpcTransport } from './transports.ts';

export const LATENCY_CHECKPOINTS = [10, 50, 100, 200] as const;
/** Calls this many trials either side of a checkpoint count for it. */
const SPREAD = 2;

export type Latencies = ReadonlyMap<number, readonly number[]>;

type Connect = () => Promise<{ transport: Transport; close(): Promise<void> | void }>;

/**
 * `loops` loops of the largest checkpoint + SPREAD + 1 trials for each service, the services taking
 * turns loop by loop (the machine's speed drifts, and both then see the same drift); the calls near
 * each checkpoint, in ms, by service.
 */
export async function loopLatencies(
  services: ReadonlyMap<string, Connect>,
  algorithm: string,
  problem: Problem,
  loops: number,
): Promise<Map<string, Latencies>> {
  const trials = Math.max(...LATENCY_CHECKPOINTS) + SPREAD + 1;
  const found = new Map<string, Map<number, number[]>>();
  for (const name of services.keys()) found.set(name, new Map(LATENCY_CHECKPOINTS.map((n) => [n, []])));
  for (let seed = 0; seed < loops; seed++) {
    // Each goes first in turn: neither always meets a machine just woken up.
    const order = [...services.keys()];
    if (seed % 2 === 1) order.reverse();
    for (const name of order) {
      const samples = found.get(name)!;
      const { transport, close } = await services.get(name)!();
      const timed: Transport = async (request) => {
        const started = performance.now();
        const reply = await transport(request);
        const ms = performance.now() - started;
        const completed = request.trials.length;
        for (const n of LATENCY_CHECKPOINTS) if (Math.abs(completed - n) <= SPREAD) samples.get(n)!.push(ms);
        return reply;
      };
      try {
        await runLoop(timed, algorithm, problem, 1000 + seed, trials, 1);
      } finally {
        await close();
      }
    }
  }
  return found;
}

/** Ours: one client on a running experiment server. */
export function oursAt(address: string): () => Promise<{ transport: Transport; close(): void }> {
  return async () => grpcTransport(address);
}

/** Katib's goptuna service from its binary, a fresh process per loop (it listens on 0.0.0.0:6789). */
export function goptunaFrom(binary: string): () => Promise<{ transport: Transport; close(): Promise<void> }> {
  if (!existsSync(binary)) throw new Error(`no goptuna binary at ${binary}`);
  return async () => {
    // Another process on its port (a goptuna left running) would answer for the new one, with its old study.
    if (await answers())
      throw new Error('127.0.0.1:6789 is taken before goptuna starts: a goptuna left running?');
    const child = spawn(binary, [], { stdio: ['ignore', 'ignore', 'ignore'] });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    await waitForAnswer(child);
    const client = grpcTransport('127.0.0.1:6789');
    return {
      transport: client.transport,
      close: async () => {
        client.close();
        child.kill('SIGKILL');
        await exited;
      },
    };
  };
}

/** Until the port accepts connections (a gRPC call would create its study with the probe's space). */
async function waitForAnswer(child: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (child.exitCode !== null) throw new Error(`goptuna exited with ${child.exitCode}`);
    if (await answers()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('goptuna did not listen in 5 s');
}

/** Whether something accepts connections on goptuna's port. */
function answers(): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const socket = connect(6789, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
