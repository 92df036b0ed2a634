// Loaded with --import by the image's entry point for programs that install no signal handler of
// their own (kvupgrade). Outside a container SIGTERM, SIGINT and SIGHUP end such a program at once;
// as PID 1 the kernel ignores them unless a handler is installed. This one exits as the default
// action would have, with the shell's 128 + signal number.
import { constants } from 'node:os';

if (process.pid === 1) {
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.once(signal, () => process.exit(128 + constants.signals[signal]));
  }
}
