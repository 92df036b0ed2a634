// A suggestion thread: runs the pure use case for the requests the pool sends it, so a
// long model fit (a Gaussian process over every trial) never holds the server's event loop.
import { parentPort } from 'node:worker_threads';
import { AppError } from '../../../../shared/errors.ts';
import { ALGORITHMS } from '../registry.ts';
import { suggest } from '../suggest.ts';
import type { ThreadReply, ThreadRequest } from './suggestion-threads.ts';

parentPort!.on('message', ({ id, request }: ThreadRequest) => {
  let reply: ThreadReply;
  try {
    reply = { id, result: suggest(request, ALGORITHMS) };
  } catch (error) {
    reply =
      error instanceof AppError
        ? { id, error: { code: error.code, message: error.message, retriable: error.retriable } }
        : { id, error: { code: 'INTERNAL', message: (error as Error).message, retriable: false } };
  }
  parentPort!.postMessage(reply);
});
