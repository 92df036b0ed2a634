// Every fuzz target, in the order `npm run fuzz` runs them, with the inputs the unit suite's bounded
// run gives each (seeded: the same inputs on every run; ≤ 60 s in all on a busy 2-core machine).
import type { FuzzTarget } from './fuzz-core.ts';
import { reportRequestTarget } from './targets/report-request.ts';
import { respReaderTarget } from './targets/resp-reader.ts';
import { rfc3339Target } from './targets/rfc3339.ts';
import { rlsRequestTarget } from './targets/rls-request.ts';
import { suggestionsRequestTarget } from './targets/suggestions-request.ts';

export const TARGETS: ReadonlyArray<{ readonly target: FuzzTarget; readonly boundedInputs: number }> = [
  { target: rfc3339Target, boundedInputs: 3_000 },
  { target: respReaderTarget, boundedInputs: 3_000 },
  { target: reportRequestTarget, boundedInputs: 2_000 },
  { target: suggestionsRequestTarget, boundedInputs: 1_000 },
  { target: rlsRequestTarget, boundedInputs: 2_000 },
];
