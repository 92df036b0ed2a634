// How evenly new connections spread over the listeners of an instance's threads, for the two ways
// threads of one process can share a port: a listener of each thread with SO_REUSEPORT (the kernel
// picks one by a hash of the connection), or one listening socket whose descriptor every thread
// listens on (the thread that wakes first accepts). Prints, for connections opened together, the
// share of the busiest thread (median and worst of the rounds) beside the even share.
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { isMainThread, parentPort, threadId, Worker, workerData } from 'node:worker_threads';

const THREADS = Number(process.env.BENCH_THREADS ?? 2);
const ROUNDS = 30;
type Listen = { port: number; host: string; reusePort: boolean } | { fd: number };

function serve(listen: Listen): Promise<Server> {
  const server = createServer((socket) => {
    socket.on('error', () => {});
    socket.end(String(threadId));
  });
  return new Promise((resolve) => server.listen(listen, () => resolve(server)));
}

const whoAnswers = (port: number): Promise<[Socket, string]> =>
  new Promise((resolve) => {
    const socket = createConnection(port, '127.0.0.1');
    socket.once('data', (data) => resolve([socket, data.toString()]));
  });

async function measure(mode: 'reusePort' | 'shared descriptor'): Promise<void> {
  const port = 40_000 + Math.floor(Math.random() * 20_000);
  const base = { port, host: '127.0.0.1', reusePort: mode === 'reusePort' };
  const main = await serve(base);
  const own = (main as unknown as { _handle: { fd: number } })._handle.fd;
  const threads: Worker[] = [];
  for (let i = 1; i < THREADS; i++) {
    const worker = new Worker(new URL(import.meta.url), {
      workerData: mode === 'reusePort' ? base : { fd: own },
    });
    await new Promise((resolve) => worker.once('message', resolve));
    threads.push(worker);
  }
  for (const together of [2, 10, 100]) {
    const shares: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const answers = await Promise.all(Array.from({ length: together }, () => whoAnswers(port)));
      const counts = new Map<string, number>();
      for (const [socket, who] of answers) {
        counts.set(who, (counts.get(who) ?? 0) + 1);
        socket.destroy();
      }
      shares.push(Math.max(...counts.values()) / together);
    }
    shares.sort((a, b) => a - b);
    const even = Math.ceil(together / THREADS) / together;
    process.stdout.write(
      `| ${mode} | ${together} | ${shares[ROUNDS >> 1]!.toFixed(2)} | ${shares[ROUNDS - 1]!.toFixed(2)} | ${even.toFixed(2)} |\n`,
    );
  }
  for (const worker of threads) await worker.terminate();
  main.close();
}

if (isMainThread) {
  process.stdout.write(
    `${THREADS} threads, ${ROUNDS} rounds of connections opened together; share of the busiest thread\n`,
  );
  process.stdout.write('| listeners | connections | median | worst | even |\n|---|---|---|---|---|\n');
  await measure('reusePort');
  await measure('shared descriptor');
} else {
  await serve(workerData as Listen);
  parentPort!.postMessage('listening');
}
