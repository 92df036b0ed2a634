// The README and docs/, walked: every command of their ```sh blocks and of the HTTP API table, in
// order (readme-walk/documents.ts), run against the product started the README's way (`npm start`),
// each judged by what the text says it does. A command without a step here fails the walk, so the
// documents cannot change unnoticed. With INFRA_PORT_SHIFT the whole product runs on moved ports.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { walkedCommands } from './readme-walk/documents.ts';
import type { ReadmeCommand } from './readme-walk/readme-commands.ts';
import { pairSteps } from './readme-walk/steps.ts';
import { stopInstances, stopProduct } from './readme-walk/steps-product.ts';
import { INFRA_PORTS, namedPorts, type Verdict, type Walk } from './readme-walk/walk.ts';

const USAGE = `usage: node scripts/readme-walk.ts [--product-running]

Runs every command of README.md and of docs/ (their sh blocks and the HTTP API table) in order and
checks that each does what the text says; prints one line per command and "N commands ok, N failed".

  --product-running   the product (npm start) is already up, as in CI; else the walk starts it
                      at the README's "npm start" and stops it (Ctrl-C) at the end
INFRA_PORT_SHIFT=N    the whole product on moved ports, beside another checkout's: its servers (the
                      product profile shifted by N), its services (each default port + N, through
                      their port settings) and every port the commands name; the benches' servers
                      on N + 1000. KAFKA_PORT, KAFKA_CONTROLLER_PORT, REDIS_PORT, POSTGRES_PORT,
                      MEMCACHED_PORT (scripts/infra.sh) move one of the product's servers further
                      (its bench twin 1000 above it), e.g. out of the ephemeral port range
exit codes: 0 every command did what the text says, 1 one did not, 2 bad arguments
`;

/** Settings a reader's shell does not have: what the walk was started with must not steer the commands. */
const FOREIGN_ENV =
  /^(INFRA_|KAFKA_|REDIS_|POSTGRES_|MEMCACHE|EXPERIMENT_|OBSERVATION_STORE$|SQLITE_|PORT$|GRPC_|DEBUG_|CONFIG_|RUNTIME_|BENCH_|LOG_LEVEL$|LOG_FORMAT$|INIT_CWD$|npm_)/;

const short = (text: string, n = 110): string => (text.length > n ? `${text.slice(0, n - 1)}…` : text);

function line(status: 'ok' | 'FAILED', command: ReadmeCommand | undefined, v: Verdict, text: string): string {
  const where = command ? `${command.file}:${command.line}` : 'walk';
  const ran = v.ran ? ` [ran: ${short(v.ran, 160)}]` : '';
  return `${status.padEnd(6)} ${where.padEnd(22)} ${short(text)}${ran} — expected ${v.expected}; seen ${v.seen}`;
}

/**
 * The settings a reader's shell has for a product on moved ports: the servers' addresses (the
 * product profile shifted) and each service's ports, as the port settings move them.
 */
function movedProduct(shift: number, infra: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  const port = (p: number) => String(p + shift);
  return {
    INFRA_PORT_SHIFT: String(shift),
    KAFKA_BROKERS: infra.KAFKA_BROKERS,
    REDIS_URL: infra.REDIS_URL,
    POSTGRES_URL: infra.POSTGRES_URL,
    MEMCACHE_HOST_PORT: infra.MEMCACHE_HOST_PORT,
    EXPERIMENT_GRPC_PORT: port(6789),
    EXPERIMENT_HTTP_PORT: port(8686),
    EXPERIMENT_METRICS_PORT: port(9101),
    PORT: port(8080),
    GRPC_PORT: port(8081),
    DEBUG_PORT: port(6070),
  };
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
  const shiftText = process.env.INFRA_PORT_SHIFT ?? '';
  const portShift = shiftText === '' ? 0 : Number(shiftText);
  if (!Number.isInteger(portShift) || portShift < 0 || portShift > 53_000) {
    process.stderr.write(
      `readme-walk: INFRA_PORT_SHIFT=${JSON.stringify(shiftText)} is not allowed: an integer from 0 to 53000\n`,
    );
    return 2;
  }
  const root = join(import.meta.dirname, '..');
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !FOREIGN_ENV.test(key)),
  );
  // Where downloads are cached changes no command's outcome.
  if (process.env.INFRA_CACHE) env.INFRA_CACHE = process.env.INFRA_CACHE;
  if (portShift > 0) for (const name of INFRA_PORTS) if (process.env[name]) env[name] = process.env[name];
  const infra = Object.fromEntries(
    execFileSync('bash', [join(root, 'scripts', 'infra.sh'), 'env'], {
      encoding: 'utf8',
      env: {
        ...env,
        INFRA_PROFILE: 'product',
        ...(portShift > 0 ? { INFRA_PORT_SHIFT: String(portShift) } : {}),
      },
    })
      .trim()
      .split('\n')
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  if (portShift > 0) Object.assign(env, movedProduct(portShift, infra));
  const walk: Walk = {
    root,
    env,
    infra,
    portShift,
    ports: portShift > 0 ? namedPorts(portShift, Number(infra.KAFKA_BROKERS!.split(':').pop())) : new Map(),
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

  if (portShift > 0)
    process.stdout.write(
      `INFRA_PORT_SHIFT=${portShift}: the product on moved ports; the ports the commands name run at ${[...walk.ports].map(([from, to]) => `${from}→${to}`).join(', ')}\n`,
    );
  const commands = walkedCommands(root);
  const pairing = pairSteps(commands);
  for (const step of pairing.stale)
    report(undefined, step.command, [
      {
        ok: false,
        expected: 'README.md or docs/ has this command',
        seen: 'in neither any more: update the walk',
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
  const files = new Set(commands.map((c) => c.file)).size;
  process.stdout.write(
    `walked README.md and docs/ (${files} documents with commands) in ${((performance.now() - begun) / 1000).toFixed(0)} s\n`,
  );
  process.stdout.write(`${ok} commands ok, ${failed} failed\n`);
  return failed === 0 ? 0 : 1;
}

process.exit(await main(process.argv.slice(2)));
