import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLiveHub, type LiveHub } from '../../services/experiment/web/adapters/live-hub.ts';
import { silentLogger } from '../../shared/logger.ts';
import { waitFor } from '../helpers/wait-for.ts';

// The fan-out over real sockets: a browser that stops reading is cut off once its unsent bytes pass
// the limit, while a reading one gets every message and the publisher never waits.
const LIMIT = 256 * 1024;
const registry = new Registry();
let hub: LiveHub;
let server: Server;
let port: number;

beforeAll(async () => {
  hub = createLiveHub({ maxBufferedBytes: LIMIT, logger: silentLogger, registry, heartbeatMs: 60_000 });
  server = createServer((req, res) => {
    const trial = new URL(req.url ?? '/', 'http://x').searchParams.get('trial') ?? undefined;
    hub.attach(res, trial === undefined ? {} : { trial });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await hub.stop();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A client that sends the request and then never reads: the kernel buffers fill, then the server's. */
function stalledClient(): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write('GET /?trial=t1 HTTP/1.1\r\nHost: x\r\n\r\n');
      socket.once('data', () => {
        socket.pause();
        resolve(socket);
      });
    });
  });
}

describe('live stream fan-out', () => {
  it('cuts off a client that stops reading; a reading client gets everything', async () => {
    const stalled = await stalledClient();
    let stalledClosed = false;
    stalled.on('close', () => {
      stalledClosed = true;
    });
    const res = await fetch(`http://127.0.0.1:${port}/?trial=t1`);
    const reader = res.body!.getReader();
    let messages = 0;
    const reading = (async () => {
      let text = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        text += new TextDecoder().decode(value);
        const parts = text.split('\n\n');
        text = parts.pop()!;
        messages += parts.filter((p) => p.startsWith('id: ')).length;
      }
    })();
    await waitFor('both clients attached', () => hub.clients() === 2);

    const value = 'x'.repeat(10_000);
    const total = 3_000; // 30 MB: far beyond what socket buffers hold
    for (let i = 0; i < total; i += 10) {
      for (let j = i; j < i + 10; j++)
        hub.publish({
          type: 'observations',
          experiment: undefined,
          trial: 't1',
          data: { trial: 't1', i: j, value },
        });
      // Another trial's messages reach neither client.
      hub.publish({ type: 'observations', experiment: undefined, trial: 't2', data: { trial: 't2' } });
      // 100 kB per turn: a client that reads keeps far below the limit.
      await sleep(2);
    }
    await waitFor('the reading client got every message', () => messages === total, { timeoutMs: 60_000 });
    expect(hub.clients()).toBe(1);
    // Reading what its buffers hold, the stalled client finds the stream ended by the server.
    stalled.resume();
    await waitFor('the stalled client cut off', () => stalledClosed, { timeoutMs: 60_000 });
    const dropped = await registry.getSingleMetricAsString('experiment_sse_dropped_total');
    expect(dropped).toMatch(/experiment_sse_dropped_total 1$/m);
    await reader.cancel();
    await reading.catch(() => undefined);
    await waitFor('the reading client detached', () => hub.clients() === 0);
  });
});
