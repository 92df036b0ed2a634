import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type {
  ExperimentSubmitter,
  SubmissionAnswer,
} from '../../../../services/experiment/common/submissions.ts';
import type { HttpContext } from '../../../../services/experiment/web/adapters/read-endpoints.ts';
import { createSubmitEndpoint } from '../../../../services/experiment/web/adapters/submit-endpoint.ts';

/** The endpoint's request and reply without a listener: a body stream and a reply that records. */
function call(
  handler: ReturnType<typeof createSubmitEndpoint>,
  body: string,
  headers: Record<string, string> = {},
) {
  const req = Object.assign(Readable.from([Buffer.from(body)]), { headers, method: 'POST' });
  const reply: { status?: number; body?: unknown } = {};
  const res = {
    writeHead: (status: number) => {
      reply.status = status;
    },
    end: (text: string) => {
      reply.body = JSON.parse(text);
    },
  };
  const context = {
    req,
    res,
    url: new URL('http://x/api/experiments'),
    params: {},
  } as unknown as HttpContext;
  return handler(context).then(() => reply);
}

function recordingSubmitter(answer: SubmissionAnswer) {
  const calls: { yaml: string; source: string }[] = [];
  const submitter: ExperimentSubmitter = {
    submit: async (yaml, source) => {
      calls.push({ yaml, source });
      return answer;
    },
  };
  return { submitter, calls };
}

describe('POST /api/experiments', () => {
  it('201 with the name and generation; the source from its header', async () => {
    const { submitter, calls } = recordingSubmitter({
      accepted: true,
      name: 'exp',
      generation: 1,
      unchanged: false,
    });
    const handler = createSubmitEndpoint({ submissions: submitter, maxBodyBytes: 1 << 20 });
    expect(await call(handler, 'kind: Experiment', { 'x-experiment-source': 'cli' })).toEqual({
      status: 201,
      body: { name: 'exp', generation: 1, unchanged: false },
    });
    expect(calls).toEqual([{ yaml: 'kind: Experiment', source: 'cli' }]);
  });

  it('200 when unchanged; an unknown source is recorded as http', async () => {
    const { submitter, calls } = recordingSubmitter({
      accepted: true,
      name: 'exp',
      generation: 2,
      unchanged: true,
    });
    const handler = createSubmitEndpoint({ submissions: submitter, maxBodyBytes: 1 << 20 });
    expect((await call(handler, 'x', { 'x-experiment-source': 'robot' })).status).toBe(200);
    expect(calls[0]?.source).toBe('http');
  });

  it('400 naming every problem by its path', async () => {
    const problems = [
      { path: 'spec.parallelTrialCount', message: 'must be at least 1' },
      { path: '', message: 'not valid YAML' },
    ];
    const { submitter } = recordingSubmitter({ accepted: false, problems });
    const handler = createSubmitEndpoint({ submissions: submitter, maxBodyBytes: 1 << 20 });
    expect(await call(handler, 'x')).toEqual({
      status: 400,
      body: {
        error: {
          code: 'INVALID_ARGUMENT',
          grpcCode: 3,
          message: 'spec.parallelTrialCount: must be at least 1\nnot valid YAML',
        },
        problems,
      },
    });
  });

  it('404 on an instance that takes no experiments', async () => {
    const handler = createSubmitEndpoint({ submissions: undefined, maxBodyBytes: 1 << 20 });
    await expect(call(handler, 'x')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
