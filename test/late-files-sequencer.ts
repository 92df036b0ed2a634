// The order of the test files: vitest's own, with two changes for the integration files, which run
// two at a time (vitest.config.ts):
// - those needing what the setup prepares in the background (test/helpers/preparations.ts) run
//   last, in the order those preparations finish, so that a whole run seldom waits for them;
// - the files that hold the experiment-topics lock (test/integration/exclusive-files.ts) are spread
//   evenly among the others, so that the two workers seldom both wait on that one lock.
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { locksOf } from './integration/exclusive-files.ts';

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
const locked = (file: TestSpecification): boolean => locksOf(file.moduleId).includes('experiment-topics');

/** `few` placed at even intervals among `many`, each list keeping its own order. */
export function spreadAmong<T>(few: readonly T[], many: readonly T[]): T[] {
  const out: T[] = [];
  const total = few.length + many.length;
  let placed = 0;
  for (let i = 0; i < total; i++) {
    // The k-th of `few` goes at about k × total / few.length.
    const due = placed < few.length && i >= Math.floor((placed * total) / few.length);
    out.push(due ? few[placed++]! : many[i - placed]!);
  }
  return out;
}

export class LateFilesSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const early = sorted.filter((file) => rank(file) < 0);
    const late = sorted.filter((file) => rank(file) >= 0).sort((a, b) => rank(a) - rank(b));
    return [
      ...spreadAmong(
        early.filter(locked),
        early.filter((file) => !locked(file)),
      ),
      ...late,
    ];
  }
}
