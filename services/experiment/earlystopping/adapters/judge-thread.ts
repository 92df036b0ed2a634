// The early-stopping judge on a thread of its own (shared/component-thread): it reads every
// report back and judges it, work that on the request thread took about a quarter of it under
// one-log reports (7,100 reports/s without the judge there, 5,000-5,400 with it).
import type { Registry } from 'prom-client';
import { startComponentThread } from '../../../../shared/component-thread/parent-side.ts';
import type { Logger } from '../../../../shared/logger.ts';
import { moduleFile } from '../../../../shared/module-file.ts';
import type { Running } from '../../../../shared/supervisor.ts';
import type { JudgeThreadConfig } from './judge-thread-protocol.ts';

const ENTRY = moduleFile(import.meta.url, './judge-thread-entry');

export function startJudgeThread(deps: {
  readonly config: JudgeThreadConfig;
  readonly logger: Logger;
  /** The judge's counters and gauges appear on these. */
  readonly registry?: Registry;
  readonly stopDeadlineMs?: number;
}): Promise<Running> {
  return startComponentThread({
    name: 'early-stopping',
    entry: ENTRY,
    workerData: deps.config,
    logger: deps.logger,
    ...(deps.registry ? { registry: deps.registry } : {}),
    ...(deps.stopDeadlineMs === undefined ? {} : { stopDeadlineMs: deps.stopDeadlineMs }),
  });
}
