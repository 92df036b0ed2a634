import type { TestProject } from 'vitest/node';
import { type InfraEnv, startInfra } from '../../scripts/infra-client.ts';

export type { InfraEnv } from '../../scripts/infra-client.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    infra: InfraEnv;
  }
}

/**
 * Starts (or reuses) the tests' own real servers through the project's own script (its `test`
 * profile: ports and data apart from what `npm start` runs), and stops at the end the ones it had
 * to start. INFRA_KEEP=1 leaves them running for the next run.
 */
export default function setup(project: TestProject): () => void {
  const infra = startInfra('test');
  project.provide('infra', infra.env);
  return () => {
    if (process.env.INFRA_KEEP !== '1') infra.stopStarted();
  };
}
