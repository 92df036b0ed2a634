// The HTTP API table of the experiment service: each example as written, in the table's order
// (later rows read what earlier ones wrote), judged by what its reply holds.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Expect,
  judge,
  launch,
  moved,
  type Step,
  sh,
  tail,
  type Verdict,
  verdict,
  type Walk,
} from './walk.ts';

const API = 'http://127.0.0.1:8686';
const PAGE_FOLDER = join(import.meta.dirname, '../../services/experiment/web/page');
/** A failure reply is `{"error": {…}}`: no example may get one. */
const NO_ERROR: Expect['notPrints'] = ['"error"'];

/** One run of an example, judged: exit 0, what it must print, and no failure reply. */
async function ask(walk: Walk, command: string, prints: Expect['prints']): Promise<Verdict> {
  return judge(await sh(walk, command, { timeoutMs: 30_000 }), { code: 0, prints, notPrints: NO_ERROR });
}

function call(command: string, prints: Expect['prints']): Step {
  return { command, run: async (walk) => [await ask(walk, command, prints)] };
}

/**
 * A read of the read model, which follows the topics a moment after the calls above (each topic on
 * its own): asked again, up to 5 s, until it shows them.
 */
function read(command: string, prints: Expect['prints']): Step {
  return {
    command,
    async run(walk) {
      let seen = await ask(walk, command, prints);
      for (let attempt = 1; attempt < 20 && !seen.ok; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        seen = await ask(walk, command, prints);
      }
      return [seen];
    },
  };
}

/** `curl -N …/stream`: it stays open; judged by the stream's first lines, then stopped as Ctrl-C does. */
function stream(command: string, first: string): Step {
  return {
    command,
    async run(walk) {
      const running = launch(walk, command);
      const opened = await running.waitFor(
        (out) => out.includes('retry: 2000') && out.includes(first),
        15_000,
      );
      await running.stop('SIGINT', 5_000);
      return [
        verdict(
          opened,
          `stays open and sends "retry: 2000" and ${JSON.stringify(first)}`,
          opened
            ? 'opened; stopped after its first lines (SIGINT)'
            : `output: ${tail(running.output()) || '(none)'}`,
        ),
      ];
    },
  };
}

const page: Step = {
  command: `open ${API}/`,
  async run(walk) {
    // Every file of the page's folder (the modules app.js imports among them), as a browser loads them.
    const files = readdirSync(PAGE_FOLDER).filter((f) => f !== 'index.html' && !f.startsWith('.'));
    const paths = ['/', ...files.sort().map((f) => `/${f}`), '/vendor/echarts.min.js'];
    const statuses = await Promise.all(
      paths.map((p) =>
        fetch(`${moved(walk, API)}${p}`).then(
          (r) => r.status,
          (e: Error) => e.message,
        ),
      ),
    );
    const wrong = paths.flatMap((p, i) => (statuses[i] === 200 ? [] : [`${p} ${statuses[i]}`]));
    return [
      verdict(
        wrong.length === 0,
        `${paths.join(', ')} answer 200`,
        wrong.length === 0 ? 'all 200' : wrong.join('; '),
        `GET ${paths.join(', ')} (what a browser opening the page loads)`,
      ),
    ];
  },
};

/** docs/web.md's two-objective experiment: three trials, their accuracy and latency. */
const MO_TRIALS = [
  ['mo-1-t1', '0.81', '40'],
  ['mo-1-t2', '0.86', '75'],
  ['mo-1-t3', '0.78', '55'],
] as const;

export const HTTP_API_STEPS: readonly Step[] = [
  call(
    `curl --json '{"experiment":{"name":"mo-1","spec":{"algorithm":{"algorithmName":"nsga2","algorithmSettings":[{"name":"objectives","value":"accuracy:maximize,latency_ms:minimize"}]},"objective":{"type":"MAXIMIZE","objectiveMetricName":"accuracy","additionalMetricNames":["latency_ms"]},"parameterSpecs":{"parameters":[{"name":"lr","parameterType":"DOUBLE","feasibleSpace":{"min":"0.001","max":"0.1"}},{"name":"layers","parameterType":"INT","feasibleSpace":{"min":"1","max":"4"}}]}}},"trials":[{"name":"mo-1-t1","spec":{"parameterAssignments":{"assignments":[{"name":"lr","value":"0.01"},{"name":"layers","value":"2"}]}},"status":{"condition":"SUCCEEDED"}},{"name":"mo-1-t2","spec":{"parameterAssignments":{"assignments":[{"name":"lr","value":"0.05"},{"name":"layers","value":"4"}]}},"status":{"condition":"SUCCEEDED"}},{"name":"mo-1-t3","spec":{"parameterAssignments":{"assignments":[{"name":"lr","value":"0.002"},{"name":"layers","value":"3"}]}},"status":{"condition":"SUCCEEDED"}}],"currentRequestNumber":1,"totalRequestNumber":4}' ${API}/api.v1.beta1.Suggestion/GetSuggestions`,
    [
      /"parameterAssignments":\[\{"assignments":\[\{"name":"lr","value":"0\.\d+"\},\{"name":"layers","value":"[1-4]"\}\]/,
    ],
  ),
  ...MO_TRIALS.map(([trial, accuracy, latency]) =>
    call(
      `curl --json '{"trialName":"${trial}","observationLog":{"metricLogs":[{"timeStamp":"2026-01-01T00:00:01Z","metric":{"name":"accuracy","value":"${accuracy}"}},{"timeStamp":"2026-01-01T00:00:01Z","metric":{"name":"latency_ms","value":"${latency}"}}]}}' ${API}/api.v1.beta1.DBManager/ReportObservationLog`,
      ['{}'],
    ),
  ),
  call(
    `curl --json '{"trialName":"exp-1-t1","observationLog":{"metricLogs":[{"timeStamp":"2026-01-01T00:00:01Z","metric":{"name":"accuracy","value":"0.71"}}]}}' ${API}/api.v1.beta1.DBManager/ReportObservationLog`,
    ['{}'],
  ),
  call(
    `curl --json '{"trialName":"exp-1-t1","metricName":"accuracy"}' ${API}/api.v1.beta1.DBManager/GetObservationLog`,
    ['"metric":{"name":"accuracy","value":"0.71"}'],
  ),
  call(`curl --json '{"trialName":"exp-1-t2"}' ${API}/api.v1.beta1.DBManager/DeleteObservationLog`, ['{}']),
  call(
    `curl --json '{"experiment":{"name":"exp-1","spec":{"algorithm":{"algorithmName":"tpe"},"objective":{"type":"MAXIMIZE","objectiveMetricName":"accuracy"},"parameterSpecs":{"parameters":[{"name":"lr","parameterType":"DOUBLE","feasibleSpace":{"min":"0.001","max":"0.1"}}]}}},"currentRequestNumber":2,"totalRequestNumber":2}' ${API}/api.v1.beta1.Suggestion/GetSuggestions`,
    [/"parameterAssignments":\[\{"assignments":\[\{"name":"lr","value":"0\.\d+"\}\].*\{"assignments"/],
  ),
  call(
    `curl --json '{"experiment":{"name":"exp-1","spec":{"algorithm":{"algorithmName":"tpe","algorithmSettings":[{"name":"n_startup_trials","value":"5"}]}}}}' ${API}/api.v1.beta1.Suggestion/ValidateAlgorithmSettings`,
    ['{}'],
  ),
  call(
    `curl --json '{"experiment":{"name":"exp-1","spec":{"objective":{"type":"MAXIMIZE","objectiveMetricName":"accuracy"},"earlyStopping":{"algorithmName":"medianstop"}}},"trials":[{"name":"exp-1-t1","status":{"condition":"SUCCEEDED"}}]}' ${API}/api.v1.beta1.EarlyStopping/GetEarlyStoppingRules`,
    ['"earlyStoppingRules":'],
  ),
  call(`curl --json '{"trialName":"exp-1-t1"}' ${API}/api.v1.beta1.EarlyStopping/SetTrialStatus`, ['{}']),
  call(
    `curl --json '{"earlyStopping":{"algorithmName":"medianstop","algorithmSettings":[{"name":"start_step","value":"4"}]}}' ${API}/api.v1.beta1.EarlyStopping/ValidateEarlyStoppingSettings`,
    ['{}'],
  ),
  read(`curl '${API}/api/experiments?format=csv'`, [
    'name,algorithm,objective_metric,objective_type,trial_count',
    /^exp-1,tpe,accuracy,MAXIMIZE,/m,
  ]),
  call(`curl --data-binary @examples/random.yaml ${API}/api/experiments`, [
    /"name":"random-example","generation":\d+/,
  ]),
  read(`curl ${API}/api/experiments/random-example/status`, ['"generation":']),
  read(`curl ${API}/api/experiments/exp-1`, ['"name":"exp-1","algorithm":"tpe"']),
  read(`curl '${API}/api/experiments/exp-1/trials?format=csv'`, [
    'order,name,condition,best_objective',
    ',exp-1-t1,',
  ]),
  read(`curl '${API}/api/experiments/mo-1/pareto?reference=0.5,100'`, [
    '"front":["mo-1-t1","mo-1-t2"]',
    '"referenceFrom":"query"',
    /"hypervolume":19\.8[45]\d*/,
  ]),
  read(`curl '${API}/api/experiments/mo-1/importance?format=csv'`, [
    'objective,parameter,importance',
    /^accuracy,lr,[\d.e-]+\r?$/m,
    /^latency_ms,layers,[\d.e-]+\r?$/m,
  ]),
  read(`curl ${API}/api/trials/exp-1-t1`, ['"trial":{"name":"exp-1-t1","experiment":"exp-1"']),
  call(
    `curl '${API}/api/trials/exp-1-t1/observations?metric=accuracy&from=2026-01-01T00:00:00Z&format=csv'`,
    ['time,metric,value', /^2026-01-01T00:00:01(\.0+)?Z,accuracy,0\.71$/m],
  ),
  stream(`curl -N ${API}/api/experiments/exp-1/stream`, ': {"experiment":"exp-1"}'),
  stream(`curl -N ${API}/api/trials/exp-1-t1/stream`, ': {"trial":"exp-1-t1"}'),
  page,
];
