// POST /api/experiments: a Katib v1beta1 Experiment as YAML (JSON is YAML too) in the body. A refused
// file answers 400 with every problem named by its path and writes nothing; an accepted one answers
// 201 with its name and generation once Kafka acknowledged it, 200 when it was the same as the last.
// GET /api/experiments/{name}/status: what the trial controller last wrote of it (`experiment run` polls it).
import type { ServerResponse } from 'node:http';
import { ERROR_TABLE, notFound } from '../../../../shared/errors.ts';
import type { ExperimentStatuses, ExperimentSubmitter } from '../../common/submissions.ts';
import { json, params, readBody } from './http-replies.ts';
import type { HttpHandler } from './read-endpoints.ts';

/** Who sent it, as ExperimentSubmitted records (the CLI and the page say so in a header). */
const SOURCES = new Set(['cli', 'page', 'http']);

function refused(res: ServerResponse, problems: readonly { path: string; message: string }[]): void {
  const message = problems.map((p) => (p.path === '' ? p.message : `${p.path}: ${p.message}`)).join('\n');
  json(res, 400, {
    error: { code: 'INVALID_ARGUMENT', grpcCode: ERROR_TABLE.INVALID_ARGUMENT.grpc, message },
    problems,
  });
}

export function createSubmitEndpoint(deps: {
  readonly submissions: ExperimentSubmitter | undefined;
  readonly maxBodyBytes: number;
}): HttpHandler {
  return async ({ req, res, url }) => {
    params(url, []);
    if (deps.submissions === undefined)
      throw notFound(
        'POST /api/experiments: this instance takes no experiments (it hosts no dbmanager page)',
      );
    const text = await readBody(req, deps.maxBodyBytes);
    const header = req.headers['x-experiment-source'];
    const source = typeof header === 'string' && SOURCES.has(header) ? header : 'http';
    const answer = await deps.submissions.submit(text, source);
    if (!answer.accepted) return refused(res, answer.problems);
    json(res, answer.unchanged ? 200 : 201, {
      name: answer.name,
      generation: answer.generation,
      unchanged: answer.unchanged,
    });
  };
}

export function createStatusEndpoint(deps: {
  readonly statuses: ExperimentStatuses | undefined;
}): HttpHandler {
  return async ({ res, url, params: named }) => {
    params(url, []);
    const name = named.experiment ?? '';
    const view = deps.statuses === undefined ? undefined : await deps.statuses.latest(name);
    if (view === undefined) throw notFound(`experiment ${JSON.stringify(name)}: never submitted`);
    json(res, 200, view);
  };
}
