// "The two commands" and "Several instances": the product started the README's way (or found
// running, as CI leaves it), the tests (CI's part), and two experiment instances from the build.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { answers, portHolder } from '../port-holder.ts';
import type { Running } from './shell.ts';
import {
  ending,
  firstError,
  judge,
  launch,
  moved,
  portOf,
  type Step,
  sh,
  tail,
  type Verdict,
  verdict,
  type Walk,
} from './walk.ts';

/** Where `npm start` listens with its defaults (the experiment and rate limit services). */
export const PRODUCT_PORTS = [6789, 8686, 9101, 8081, 8080, 6070] as const;
const PAGE = 'http://127.0.0.1:8686/';
const STARTED = 'product';
const INSTANCES = 'instances';

/** The product's ports where this walk runs it. */
const productPorts = (walk: Walk): number[] => PRODUCT_PORTS.map((p) => portOf(walk, p));

async function productAnswers(walk: Walk): Promise<string[]> {
  const ports = productPorts(walk);
  const silent = (await Promise.all(ports.map((p) => answers('127.0.0.1', p)))).flatMap((up, i) =>
    up ? [] : [String(ports[i])],
  );
  const page = await fetch(moved(walk, PAGE)).then(
    (r) => r.status,
    () => 0,
  );
  return [
    ...silent.map((p) => `nothing on ${p}`),
    ...(page === 200 ? [] : [`page ${moved(walk, PAGE)} answered ${page}`]),
  ];
}

const startProduct: Step = {
  command: 'npm ci && npm start',
  async run(walk) {
    const expected = `every port answers (${productPorts(walk).join(', ')}) and the page ${moved(walk, PAGE)} 200`;
    if (walk.productRunning) {
      const wrong = await productAnswers(walk);
      return [
        verdict(
          wrong.length === 0,
          expected,
          wrong.length === 0
            ? 'started before the walk (CI starts it before the tests; .ci/run checks its Ctrl-C)'
            : wrong.join('; '),
          'npm start (already running: --product-running)',
        ),
      ];
    }
    // npm ci would replace the node_modules this walk runs from: the walk starts from an installed clone.
    const product = launch(walk, 'npm start');
    walk.state.set(STARTED, product);
    walk.cleanups.push(async () => void (await product.stop('SIGINT', 30_000)));
    const up = await product.waitFor((out) => out.includes('backbone is running'), 300_000);
    const wrong = up ? await productAnswers(walk) : ['no "backbone is running" banner'];
    return [
      verdict(
        wrong.length === 0,
        `the banner "backbone is running", then ${expected}`,
        wrong.length === 0
          ? 'banner printed, every port answers'
          : `${wrong.join('; ')}; output: ${tail(product.output())}`,
        'npm start (npm ci: the walk runs from the installed clone)',
      ),
    ];
  },
};

/** The product the walk started: Ctrl-C stops it, saying so, with exit 0. */
export async function stopProduct(walk: Walk): Promise<Verdict[]> {
  const product = walk.state.get(STARTED) as Running | undefined;
  if (product === undefined) return [];
  // As a terminal's Ctrl-C: SIGINT to npm and everything under it. npm then ends by the signal (the
  // shell shows 130) once the product has stopped; what matters is the last line and the ports.
  const result = await product.stop('SIGINT', 30_000);
  const byCtrlC = result.code === 0 || result.code === 130 || result.signal === 'SIGINT';
  const stopped = /^everything stopped.*$/m.exec(result.stdout)?.[0];
  const ports = productPorts(walk);
  const left = (await Promise.all(ports.map((p) => answers('127.0.0.1', p)))).flatMap((up, i) =>
    up ? [ports[i]] : [],
  );
  return [
    verdict(
      byCtrlC && !result.timedOut && stopped !== undefined && left.length === 0,
      'ends on Ctrl-C with the line "everything stopped: …", and nothing listens on its ports',
      `${ending(result)}; ${stopped === undefined ? `no "everything stopped" line; output: ${tail(result.stdout + result.stderr)}` : JSON.stringify(stopped)}${left.length > 0 ? `; still listening: ${left.join(', ')}` : ''}`,
      'Ctrl-C (SIGINT to npm start and everything under it)',
    ),
  ];
}

const test: Step = {
  command: 'npm ci && npm test',
  async run() {
    return [
      verdict(
        true,
        'every test passes',
        'not run again: .ci/run runs npm ci && npm test before this walk and counts each test',
        '(covered by CI)',
      ),
    ];
  },
};

const build: Step = {
  command: 'npm run build',
  async run(walk, command) {
    const result = await sh(walk, command, { timeoutMs: 180_000 });
    const entry = join(walk.root, 'dist', 'services', 'experiment', 'main.js');
    const made = judge(result, { code: 0, prints: [`build: ${join(walk.root, 'dist')}`] });
    return [existsSync(entry) ? made : { ...made, ok: false, seen: `${made.seen}; no ${entry}` }];
  },
};

/** The ports an instance line sets: `EXPERIMENT_GRPC_PORT=6790 EXPERIMENT_HTTP_PORT=8687 …`. */
function instancePorts(command: string): { grpc: number; http: number; metrics: number } {
  const port = (name: string) => Number(new RegExp(`${name}=(\\d+)`).exec(command)?.[1] ?? Number.NaN);
  return {
    grpc: port('EXPERIMENT_GRPC_PORT'),
    http: port('EXPERIMENT_HTTP_PORT'),
    metrics: port('EXPERIMENT_METRICS_PORT'),
  };
}

/**
 * One `… dist/services/experiment/main.js &` line: started, then judged by its three ports and its
 * HTTP API; the last line of the block stops both (SIGTERM, as `kill %1 %2`), each exiting 0.
 */
function instance(command: string, last: boolean): Step {
  return {
    command,
    async run(walk) {
      const ports = instancePorts(moved(walk, command));
      const instances = (walk.state.get(INSTANCES) as Running[] | undefined) ?? [];
      walk.state.set(INSTANCES, instances);
      const taken = [ports.grpc, ports.http, ports.metrics].flatMap((p) => {
        const holder = portHolder(p);
        return holder === undefined ? [] : [`${p} is held by ${holder}`];
      });
      const running = launch(walk, command.replace(/\s*&$/, ''));
      instances.push(running);
      // Another process answering on its ports would pass for the instance: it must be running too.
      const listening = await running.waitFor(async () => {
        if (!running.alive()) return false;
        const up = await Promise.all([ports.grpc, ports.metrics].map((p) => answers('127.0.0.1', p)));
        const api = await fetch(`http://127.0.0.1:${ports.http}/api/experiments`).then(
          (r) => r.status === 200,
          () => false,
        );
        return up.every(Boolean) && api;
      }, 90_000);
      const verdicts = [
        verdict(
          listening && taken.length === 0,
          `gRPC on ${ports.grpc}, metrics on ${ports.metrics}, GET :${ports.http}/api/experiments 200`,
          listening && taken.length === 0
            ? 'all three answer'
            : `${running.alive() ? 'not listening' : 'it exited'}${taken.length > 0 ? ` (before it started, ${taken.join(', ')})` : ''}; ${firstError(running.output()) ? `first error: ${firstError(running.output())}; ` : ''}output: ${tail(running.output())}`,
        ),
      ];
      if (!last) return verdicts;
      for (const [i, other] of instances.entries()) {
        const stopped = await other.stop('SIGTERM', 20_000);
        verdicts.push(
          verdict(
            stopped.code === 0 && !stopped.timedOut,
            'exit 0 on SIGTERM',
            ending(stopped),
            `kill %${i + 1} (SIGTERM to the instance started above)`,
          ),
        );
      }
      walk.state.delete(INSTANCES);
      verdicts.push(await productReadsAgain(walk));
      return verdicts;
    },
  };
}

/**
 * The instances shared the product's consumer groups: once they are gone, `npm start`'s instance
 * takes their partitions back, and its reads answer again (the HTTP examples that follow read).
 */
async function productReadsAgain(walk: Walk): Promise<Verdict> {
  const begun = performance.now();
  let last = '';
  while (performance.now() - begun < 60_000) {
    const reply = await fetch(`${moved(walk, PAGE)}api.v1.beta1.DBManager/GetObservationLog`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ trialName: 'readme-walk-no-such-trial' }),
    }).then(
      async (r) => ({ status: r.status, text: await r.text() }),
      (e: Error) => ({ status: 0, text: e.message }),
    );
    if (reply.status === 200)
      return verdict(
        true,
        "npm start's instance reads again (GetObservationLog 200) within 60 s",
        `after ${((performance.now() - begun) / 1000).toFixed(1)} s`,
        '(the product once the instances are gone)',
      );
    last = `${reply.status} ${reply.text}`;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return verdict(
    false,
    "npm start's instance reads again (GetObservationLog 200) within 60 s",
    `last answer: ${last}`,
    '(the product once the instances are gone)',
  );
}

/** The instances still running when the walk ends early. */
export async function stopInstances(walk: Walk): Promise<void> {
  for (const running of (walk.state.get(INSTANCES) as Running[] | undefined) ?? [])
    await running.stop('SIGKILL');
}

const INSTANCE_LINE = (grpc: number, http: number, metrics: number) =>
  `EXPERIMENT_GRPC_PORT=${grpc} EXPERIMENT_HTTP_PORT=${http} EXPERIMENT_METRICS_PORT=${metrics} OBSERVATION_STORE=postgres node_modules/.bin/node --max-semi-space-size=4 --heap-growing-percent=10 dist/services/experiment/main.js &`;

export const PRODUCT_STEPS: readonly Step[] = [
  startProduct,
  test,
  build,
  instance(INSTANCE_LINE(6790, 8687, 9102), false),
  instance(INSTANCE_LINE(6791, 8688, 9103), true),
];
