// A lock between test files that run at once (vitest's integration workers): a file that needs a
// server of which there is one per machine (the three-broker Kafka cluster) holds it from start to
// stop. mkdir is atomic; the folder names its holder's pid, so a holder that died leaves no lock.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const ROOT = join(import.meta.dirname, '..', '..');
const held = new Map<string, string>();

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Waits until this process holds the lock `name` (up to `ceilingMs`, which only catches a hang);
 * resolves to how long it waited.
 */
export async function holdExclusive(name: string, ceilingMs = 20 * 60_000): Promise<number> {
  const started = Date.now();
  const dir = join(ROOT, '.infra', 'locks', name);
  mkdirSync(join(dir, '..'), { recursive: true });
  const deadline = started + ceilingMs;
  for (;;) {
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, 'pid'), String(process.pid));
      held.set(name, dir);
      return Date.now() - started;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let holder = Number.NaN;
    try {
      holder = Number(readFileSync(join(dir, 'pid'), 'utf8'));
    } catch {}
    // A folder without a pid yet is being taken right now; one whose holder is gone is stale.
    if (Number.isInteger(holder) && holder > 0 && !alive(holder))
      rmSync(dir, { recursive: true, force: true });
    if (Date.now() > deadline)
      throw new Error(`the lock ${name} (${dir}) is still held by pid ${holder} after ${ceilingMs} ms`);
    await sleep(500);
  }
}

export function releaseExclusive(name: string): void {
  const dir = held.get(name);
  if (!dir) return;
  held.delete(name);
  rmSync(dir, { recursive: true, force: true });
}
