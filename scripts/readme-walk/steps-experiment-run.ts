// The README's example experiment: `experiment run` against the product's trial controller, with
// two local runners, judged by its exit code and last line. When the walk moved the product's
// ports, the run is pointed at them (its URL and the runners' DBManager); as written otherwise.
import { judge, portOf, type Step, sh } from './walk.ts';

const RUN = 'npm run -s experiment -- run examples/medianstop.yaml --runners 2';

export const EXPERIMENT_RUN_STEPS: readonly Step[] = [
  {
    command: RUN,
    async run(walk) {
      const moved = walk.ports.size > 0;
      const command = moved ? `${RUN} --url http://127.0.0.1:${portOf(walk, 8686)}` : RUN;
      const env = { ...walk.env, RUNNER_DB_MANAGER_ADDRESS: `127.0.0.1:${portOf(walk, 6789)}` };
      const finished = await sh(walk, command, { timeoutMs: 180_000, env });
      return [
        judge(finished, {
          code: 0,
          prints: [/^experiment medianstop-example Succeeded \(ExperimentMaxTrialsReached/m, /early-stopped/],
        }),
      ];
    },
  },
];
