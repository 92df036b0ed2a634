// The README, walked: every command of its ```sh blocks and of the HTTP API table, in order, run
// against the product started the README's way (`npm start`), each judged by what the README says
// it does. A command without a step here fails the walk, so the README cannot change unnoticed.
// `.ci/run` runs it after the tests, with --product-running, against the product it started.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ReadmeCommand, readmeCommands } from './readme-walk/readme-commands.ts';
import { pairSteps } from './readme-walk/steps.ts';
import { stopInstances, stopProduct } from './readme-walk/steps-product.ts';
import type { Verdict, Walk } from './readme-walk/walk.ts';

const USAGE = `usage: node scripts/readme-walk.ts [--product-running]

Runs every command of README.md (its sh blocks and the HTTP API table) in order and checks that
each does what the README says; prints one line per command and "N commands ok, N failed".

  --product-running   the product (npm start) is already up, as in CI; else the walk starts it
                      at the README's "npm start" and stops it (Ctrl-C) at the end
exit codes: 0 every command did what the README says, 1 one did not, 2 bad arguments
`;

/** Settings a reader's shell does not have: what the walk was started with must not steer the commands. */
const FOREIGN_ENV =
  /^(INFRA_|KAFKA_|REDIS_|POSTGRES_|MEMCACHE|EXPERIMENT_|OBSERVATION_STORE$|SQLITE_|PORT$|GRPC_|DEBUG_|CONFIG_|RUNTIME_|BENCH_|LOG_LEVEL$|LOG_FORMAT$|INIT_CWD$|npm_)/;

const short = (text: string, n = 110): string => (text.length > n ? `${text.slice(0, n - 1)}…` : text);

function line(status: 'ok' | 'FAILED', command: ReadmeCommand | undefined, v: Verdict, text: string): string {
  const where = command ? `README:${command.line}` : 'walk';
  const ran = v.ran ? ` [ran: ${short(v.ran, 160)}]` : '';
  return `${status.padEnd(6)} ${where.padEnd(11)} ${short(text)}${ran} — expected ${v.expected}; seen ${v.seen}`;
}

async function main(argv: readonly string[]): Promise<number> {
  if (argv.includes('-h') || argv.includes('--help')) {
    process.stdout.write(USAGE);
    return 0;
  }
  const unknown = argv.filter((a) => a !== '--product-running');
  if (unknown.length > 0) {
    process.stderr.write(`readme-walk: unknown argument ${unknown.join(' ')}\n${USAGE}`);
    return 2;
  }
  const root = join(import.meta.dirname, '..');
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !FOREIGN_ENV.test(key)),
  );
  const infra = Object.fromEntries(
    execFileSync('bash', [join(root, 'scripts', 'infra.sh'), 'env'], {
      encoding: 'utf8',
      env: { ...env, INFRA_PROFILE: 'product' },
    })
      .trim()
      .split('\n')
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  const walk: Walk = {
    root,
    env,
    infra,
    productRunning: argv.includes('--product-running'),
    cleanups: [() => stopInstances(walk)],
    state: new Map(),
  };
  const cleanUp = async () => {
    for (const cleanup of walk.cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  };
  process.once('SIGINT', () => {
    void cleanUp().then(() => process.exit(130));
  });

  const begun = performance.now();
  let ok = 0;
  let failed = 0;
  const report = (command: ReadmeCommand | undefined, text: string, verdicts: readonly Verdict[]) => {
    for (const v of verdicts) {
      if (v.ok) ok++;
      else failed++;
      process.stdout.write(`${line(v.ok ? 'ok' : 'FAILED', command, v, text)}\n`);
    }
  };

  const commands = readmeCommands(readFileSync(join(root, 'README.md'), 'utf8'));
  const pairing = pairSteps(commands);
  for (const step of pairing.stale)
    report(undefined, step.command, [
      {
        ok: false,
        expected: 'the README has this command',
        seen: 'not in README.md any more: update the walk',
      },
    ]);

  try {
    for (const { command, step } of pairing.commands) {
      if (step === undefined) {
        report(command, command.text, [
          {
            ok: false,
            expected: `a step in scripts/readme-walk/ for this ${command.source} command`,
            seen: 'none: add one',
          },
        ]);
        continue;
      }
      let verdicts: Verdict[];
      try {
        verdicts = await step.run(walk, command.text);
      } catch (error) {
        verdicts = [
          { ok: false, expected: 'the step to run', seen: `it threw: ${(error as Error).message}` },
        ];
      }
      report(command, command.text, verdicts);
    }
    report(commands[0], 'npm start', await stopProduct(walk));
  } finally {
    await cleanUp();
  }
  process.stdout.write(`walked README.md in ${((performance.now() - begun) / 1000).toFixed(0)} s\n`);
  process.stdout.write(`${ok} commands ok, ${failed} failed\n`);
  return failed === 0 ? 0 : 1;
}

process.exit(await main(process.argv.slice(2)));
