// CPU seconds and peak RSS of a set of processes while a command runs, read from /proc every
// SAMPLE_MS: what a user pays for the machinery, every thread of it, without the trial scripts. A
// root counts with its descendants down to `depth` (the CLI with its runners, depth 1, but not the
// runners' trials; Python alone, depth 0: its children are the trials).
import { readFile } from 'node:fs/promises';
import { CLK_TCK, cpuTicks, processTree, rssMb } from '../ratelimit/process-stats.ts';

const SAMPLE_MS = 50;

export interface Root {
  readonly pid: number;
  /** 0: the process alone; 1: with its children; Infinity: its whole tree. */
  readonly depth: number;
}

export interface Usage {
  readonly cpuSeconds: number;
  /** The same, root by root in the order they were given or added. */
  readonly cpuSecondsByRoot: readonly number[];
  /** The largest sum of the processes' RSS seen at one sample. */
  readonly peakRssMb: number;
}

export interface UsageWatch {
  /** Counts one more root from now on (a process just spawned). */
  add(root: Root): void;
  stop(): Promise<Usage>;
}

async function childrenOf(pid: number): Promise<number[]> {
  const text = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
  return text.trim().split(/\s+/).filter(Boolean).map(Number);
}

async function pidsOf(root: Root): Promise<number[]> {
  if (root.depth === Number.POSITIVE_INFINITY) return processTree(root.pid);
  const pids = [root.pid];
  let layer = [root.pid];
  for (let level = 0; level < root.depth; level++) {
    const next = (await Promise.all(layer.map(childrenOf))).flat();
    pids.push(...next);
    layer = next;
  }
  return pids;
}

/**
 * Samples until stopped. A process's CPU is its last sample's (one that exits loses at most its last
 * SAMPLE_MS) less what it had used at the watch's start (a service started before it).
 */
export async function watchUsage(roots: readonly Root[]): Promise<UsageWatch> {
  const all: Root[] = [...roots];
  const baseline = new Map<number, number>();
  for (const root of all) for (const pid of await pidsOf(root)) baseline.set(pid, await cpuTicks([pid]));
  const last = new Map<number, number>();
  /** Which root a process was first seen under. */
  const rootOf = new Map<number, number>();
  let peakRssMb = 0;
  let stopped = false;
  const sample = async () => {
    let rss = 0;
    for (const [index, root] of [...all].entries())
      for (const pid of await pidsOf(root)) {
        const [ticks, mb] = [await cpuTicks([pid]), await rssMb(pid)];
        if (mb === 0) continue; // gone between the listing and the read
        last.set(pid, Math.max(ticks, last.get(pid) ?? 0));
        if (!rootOf.has(pid)) rootOf.set(pid, index);
        rss += mb;
      }
    peakRssMb = Math.max(peakRssMb, rss);
  };
  const loop = (async () => {
    while (!stopped) {
      await sample();
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
    }
  })();
  return {
    add: (root) => void all.push(root),
    stop: async () => {
      stopped = true;
      await loop;
      await sample();
      const byRoot = all.map(() => 0);
      for (const [pid, value] of last) byRoot[rootOf.get(pid)!]! += value - (baseline.get(pid) ?? 0);
      const cpuSecondsByRoot = byRoot.map((ticks) => ticks / CLK_TCK);
      return { cpuSeconds: cpuSecondsByRoot.reduce((a, b) => a + b, 0), cpuSecondsByRoot, peakRssMb };
    },
  };
}
