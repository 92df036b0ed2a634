// Every step of the walk, and how the README's commands are paired with them: by their text, a
// run of whitespace comparing as one space (the README aligns its comments).
import type { ReadmeCommand } from './readme-commands.ts';
import { EXPERIMENT_RUN_STEPS } from './steps-experiment-run.ts';
import { HTTP_API_STEPS } from './steps-http-api.ts';
import { KVUPGRADE_STEPS } from './steps-kvupgrade.ts';
import { PRODUCT_STEPS } from './steps-product.ts';
import { RATELIMIT_STEPS } from './steps-ratelimit.ts';
import { TOPIC_STEPS } from './steps-topics.ts';
import type { Step } from './walk.ts';

export const STEPS: readonly Step[] = [
  ...PRODUCT_STEPS,
  ...HTTP_API_STEPS,
  ...EXPERIMENT_RUN_STEPS,
  ...TOPIC_STEPS,
  ...RATELIMIT_STEPS,
  ...KVUPGRADE_STEPS,
];

const normalized = (text: string): string => text.replace(/\s+/g, ' ').trim();

export interface Pairing {
  /** Each README command in order, with its step (undefined: the walk has none). */
  readonly commands: ReadonlyArray<{ readonly command: ReadmeCommand; readonly step: Step | undefined }>;
  /** Steps whose command the README no longer has. */
  readonly stale: readonly Step[];
}

export function pairSteps(commands: readonly ReadmeCommand[], steps: readonly Step[] = STEPS): Pairing {
  const stepOf = new Map(steps.map((s) => [normalized(s.command), s]));
  const inReadme = new Set(commands.map((c) => normalized(c.text)));
  return {
    commands: commands.map((command) => ({ command, step: stepOf.get(normalized(command.text)) })),
    stale: steps.filter((s) => !inReadme.has(normalized(s.command))),
  };
}
