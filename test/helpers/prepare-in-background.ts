// Runs the preparation steps one after another (test/helpers/preparations.ts): started by the
// integration setup when the run begins, so that tools, the image and the etcd releases are ready
// by the time the late test files ask for them. A step that fails is reported and left to the test
// that needs it (its own call runs the step again and fails with the reason).
import { PREPARATION_STEPS, type PreparationStep, prepared } from './preparations.ts';

const steps = process.argv
  .slice(2)
  .filter((s): s is PreparationStep => PREPARATION_STEPS.includes(s as PreparationStep));
for (const step of steps.length > 0 ? steps : PREPARATION_STEPS) {
  const started = performance.now();
  try {
    await prepared(step);
    process.stdout.write(`prepared ${step} in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  } catch (error) {
    process.stdout.write(
      `preparing ${step} failed after ${((performance.now() - started) / 1000).toFixed(0)} s: ${(error as Error).message}\n`,
    );
  }
}
