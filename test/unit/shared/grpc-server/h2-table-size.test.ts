// A client that gives its HPACK decoder a table smaller than 4,096 (SETTINGS_HEADER_TABLE_SIZE)
// must be told, at the start of the server's next header block, that the server's encoder shrank
// its table (RFC 7541 4.2): nghttp2 ends the session with a protocol error otherwise. Before this,
// every call of such a node:http2 client failed (the h2-connection fuzz target found it).
import http2 from 'node:http2';
import { type AddressInfo, createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { H2Connection } from '../../../../shared/grpc-server/h2-connection.ts';
import { FRAME, SETTING } from '../../../../shared/grpc-server/h2-frames.ts';
import type { StreamHandler } from '../../../../shared/grpc-server/h2-output.ts';
import { OK_TRAILERS, RESPONSE_HEADERS } from '../../../../shared/grpc-server/http2-parts.ts';
import { createDriver, data, headers, settings } from '../../../helpers/h2-driver.ts';

const echo: StreamHandler = {
  onHeaders: () => {},
  onEnd: (stream, connection) => connection.respond(stream, RESPONSE_HEADERS, stream.message(), OK_TRAILERS),
  onOversize: () => {},
  onClosed: () => {},
  onError: () => {},
};

const headerBlocks = (frames: ReturnType<ReturnType<typeof createDriver>['read']>) =>
  frames.filter((f) => f.type === FRAME.HEADERS).map((f) => f.payload);

describe('a smaller table announced by the client', () => {
  it.each([0, 256, 4095])(
    'SETTINGS_HEADER_TABLE_SIZE %i: the next header block starts with an update to 0, once',
    (size) => {
      const driver = createDriver({ onEnd: echo.onEnd });
      driver.send(settings([[SETTING.HEADER_TABLE_SIZE, size]]));
      const [first, trailers] = headerBlocks(driver.send(headers(1), data(1, 5, true)));
      expect(first![0]).toBe(0x20);
      expect(first!.subarray(1)).toEqual(RESPONSE_HEADERS);
      expect(trailers).toEqual(OK_TRAILERS);
      const [second] = headerBlocks(driver.send(headers(3), data(3, 5, true)));
      expect(second).toEqual(RESPONSE_HEADERS);
      // The encoder's table is 0 from then on: a later, smaller setting needs no update.
      driver.send(settings([[SETTING.HEADER_TABLE_SIZE, 0]]));
      expect(headerBlocks(driver.send(headers(5), data(5, 5, true)))[0]).toEqual(RESPONSE_HEADERS);
    },
  );

  it('no update when the table stays at 4,096 or grows', () => {
    const driver = createDriver({ onEnd: echo.onEnd });
    driver.send(settings([[SETTING.HEADER_TABLE_SIZE, 65_536]]));
    expect(headerBlocks(driver.send(headers(1), data(1, 5, true)))[0]).toEqual(RESPONSE_HEADERS);
  });

  it('node:http2 clients with tables of 0 and 256 get their answers', async () => {
    const server = createServer((socket) => new H2Connection(socket, echo, 1 << 20));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      for (const headerTableSize of [0, 256]) {
        const client = http2.connect(`http://127.0.0.1:${port}`, { settings: { headerTableSize } });
        client.on('error', () => {});
        const answers = await Promise.all(
          [1, 2, 3].map(
            (n) =>
              new Promise<string>((resolve, reject) => {
                const request = client.request({
                  ':method': 'POST',
                  ':path': '/a',
                  'content-type': 'application/grpc',
                });
                const chunks: Buffer[] = [];
                request.on('data', (chunk: Buffer) => chunks.push(chunk));
                request.on('error', reject);
                request.on('close', () => resolve(Buffer.concat(chunks).toString()));
                request.end(`call ${n}`);
              }),
          ),
        );
        expect(answers).toEqual(['call 1', 'call 2', 'call 3']);
        client.close();
      }
    } finally {
      server.close();
    }
  });
});
