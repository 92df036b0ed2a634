// Katib's File collector without a sidecar: the trial's metrics file is read as it grows (polled,
// since a file on a network mount sends no change events), each new piece handed on, and read to
// its end once more after the process ended, so the last values written are not lost.
import { open } from 'node:fs/promises';

export interface MetricsFileTail {
  /** Reads what is left, then stops polling; resolves after the last piece was handed on. */
  finish(): Promise<void>;
}

const READ_BYTES = 64 * 1024;

export function tailMetricsFile(options: {
  readonly path: string;
  readonly pollMs: number;
  readonly onText: (chunk: string) => void;
}): MetricsFileTail {
  let offset = 0;
  let reading: Promise<void> = Promise.resolve();
  const decoder = new TextDecoder('utf-8');
  const readNew = async (): Promise<void> => {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(options.path, 'r');
    } catch {
      return; // not written yet
    }
    try {
      const buffer = Buffer.alloc(READ_BYTES);
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, READ_BYTES, offset);
        if (bytesRead === 0) break;
        offset += bytesRead;
        const text = decoder.decode(buffer.subarray(0, bytesRead), { stream: true });
        if (text !== '') options.onText(text);
      }
    } finally {
      await handle.close();
    }
  };
  const poll = () => {
    // A read that failed (the file replaced under it) is tried again at the next poll.
    reading = reading.then(readNew).catch(() => undefined);
  };
  const timer = setInterval(poll, options.pollMs);
  return {
    finish: async () => {
      clearInterval(timer);
      poll();
      await reading;
    },
  };
}
