// The order of the test files: vitest's own, except that the integration files needing what the
// setup prepares in the background (test/helpers/preparations.ts) run last, in the order those
// preparations finish, so that a whole run seldom waits for them.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Path endings, in the order they run at the end. */
const LAST = [
  'test/integration/ratelimit-interop.test.ts', // interop-tools
  'test/integration/deploy-manifests.test.ts', // manifest-tools
  'test/integration/container-tools.test.ts', // test-image
  'test/integration/container-experiment.test.ts', // test-image, katib-sdk
  'test/integration/kvupgrade-paths.test.ts', // etcd-releases
  'test/integration/kvupgrade-route.test.ts', // etcd-releases
];

const rank = (file: TestSpecification): number => LAST.findIndex((end) => file.moduleId.endsWith(end));

export class LateFilesSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const early = sorted.filter((file) => rank(file) < 0);
    const late = sorted.filter((file) => rank(file) >= 0).sort((a, b) => rank(a) - rank(b));
    return [...early, ...late];
  }
}
