/**
 * A configuration that cannot be loaded. `message` is exactly the reference's `<file name>: <problem>`,
 * so logs and xDS NACKs read the same as envoyproxy/ratelimit's.
 */
export class ConfigError extends Error {
  readonly fileName: string;
  readonly problem: string;

  constructor(fileName: string, problem: string) {
    super(`${fileName}: ${problem}`);
    this.name = 'ConfigError';
    this.fileName = fileName;
    this.problem = problem;
  }
}
