// CPU time and memory of a process tree, read from /proc (Linux).
import { readFile } from 'node:fs/promises';

/** Clock ticks per second of /proc/<pid>/stat's times. */
export const CLK_TCK = 100;

/** The process and its descendants (our primary and its decision processes). */
export async function processTree(pid: number): Promise<number[]> {
  const children = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
  const list = [pid];
  for (const child of children.trim().split(/\s+/).filter(Boolean))
    list.push(...(await processTree(Number(child))));
  return list;
}

/** User and system CPU time of `pids`, in ticks. */
export async function cpuTicks(pids: readonly number[]): Promise<number> {
  let ticks = 0;
  for (const pid of pids) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11] ?? 0) + Number(fields[12] ?? 0); // utime, stime
  }
  return ticks;
}

/** Resident memory of `pid`, in MB. */
export async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}
