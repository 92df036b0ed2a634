// bench:suite:grpc: a sample of the suite's runs both in process (as bench:suite runs them) and
// through the experiment server's gRPC Suggestion service, to show the in-process figures are the
// service's: every trajectory must be the same number for number. Needs Kafka (bench-infra.sh).
// Flags: --functions 15,10m --dims 2,5 --budget 50 --seeds 2 --samplers a,b
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { kafkaSettings } from '../../shared/bus/kafka-settings.ts';
import { readSettings } from '../../shared/settings.ts';
import { startExperimentServer } from '../../test/helpers/experiment-server.ts';
import { suggestionOnlyEnv } from '../server-env.ts';
import { runLoop } from '../suggest/driver.ts';
import { grpcTransport, inProcessTransport } from '../suggest/transports.ts';
import { problemByName } from './problems.ts';

const { values: flags } = parseArgs({
  options: {
    functions: { type: 'string', default: '15,10m' },
    dims: { type: 'string', default: '2,5' },
    budget: { type: 'string', default: '50' },
    seeds: { type: 'string', default: '2' },
    samplers: { type: 'string', default: 'random,tpe,multivariate-tpe,cmaes,bayesianoptimization' },
  },
});
const list = (text: string) => text.split(',').filter(Boolean);
const budget = Number(flags.budget);
const jobs = list(flags.samplers).flatMap((sampler) =>
  list(flags.functions).flatMap((f) =>
    list(flags.dims).flatMap((d) =>
      Array.from({ length: Number(flags.seeds) }, (_, seed) => ({
        sampler,
        problem: `f${f}-d${d}-i${1 + (seed % 5)}`,
        seed,
      })),
    ),
  ),
);

const settings = readSettings(kafkaSettings, process.env);
const scratch = mkdtempSync(join(tmpdir(), 'bench-suite-grpc-'));
const server = await startExperimentServer(
  suggestionOnlyEnv(settings.kafkaBrokers, join(scratch, 'observations.db')),
);
const client = grpcTransport(server.address);
const everyTrial = Array.from({ length: budget }, (_, i) => i + 1);
let differing = 0;
try {
  for (const job of jobs) {
    const run = (transport: typeof inProcessTransport) =>
      runLoop(transport, job.sampler, problemByName(job.problem), job.seed, budget, 1, everyTrial);
    const [here, there] = [await run(inProcessTransport), await run(client.transport)];
    const same = here.regrets.every((r, i) => Object.is(r, there.regrets[i]));
    if (!same) differing++;
    process.stdout.write(
      `${job.sampler} ${job.problem} seed ${job.seed}: final regret ${here.regrets.at(-1)} in process, ${there.regrets.at(-1)} through gRPC — ${same ? 'same trajectory' : 'DIFFERENT'}\n`,
    );
  }
} finally {
  client.close();
  await server.stop();
  rmSync(scratch, { recursive: true, force: true });
}
process.stdout.write(
  `${jobs.length - differing} of ${jobs.length} runs the same in process and through gRPC\n`,
);
if (differing > 0) process.exit(1);
