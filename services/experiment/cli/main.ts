// `npm run -s experiment -- <command>`: the experiment CLI. Reads its arguments and settings once
// and hands them to the command.
import { toAppError } from '../../../shared/errors.ts';
import { SettingsError } from '../../../shared/settings.ts';
import { readRunnerSettings } from '../settings.ts';
import { parseCli, USAGE } from './cli-args.ts';
import { EXIT_CODES } from './run-summary.ts';
import { runnerCommand } from './runner-command.ts';

async function main(): Promise<number> {
  const parsed = parseCli(process.argv.slice(2));
  if (parsed.kind === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return EXIT_CODES.succeeded;
  }
  if (parsed.kind === 'error') {
    process.stderr.write(`experiment: ${parsed.message}\n${USAGE}\n`);
    return EXIT_CODES.refused;
  }
  const settings = readRunnerSettings(process.env);
  switch (parsed.options.command) {
    case 'runner':
      return runnerCommand(settings, process.cwd());
    case 'run':
      process.stderr.write(
        'experiment: run is not built yet (issue 43): start runners with `experiment runner`\n',
      );
      return EXIT_CODES.refused;
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message = error instanceof SettingsError ? error.message : toAppError(error).message;
    process.stderr.write(`experiment: ${message}\n`);
    process.exit(error instanceof SettingsError ? EXIT_CODES.refused : EXIT_CODES.unreachable);
  },
);
