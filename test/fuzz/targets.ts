// Every fuzz target, in the order `npm run fuzz` runs them, with the inputs the unit suite's bounded
// run gives each (seeded: the same inputs on every run; ≤ 60 s in all on a busy 2-core machine).
import type { FuzzTarget } from './fuzz-core.ts';
import { h2ConnectionTarget } from './targets/h2-connection.ts';
import { h2MutatedTarget } from './targets/h2-mutated.ts';
import { hpackNghttp2Target } from './targets/hpack-nghttp2.ts';
import { jsonRequestTarget } from './targets/json-request.ts';
import { memcacheRepliesTarget } from './targets/memcache-replies.ts';
import { reportRequestTarget } from './targets/report-request.ts';
import { respReaderTarget } from './targets/resp-reader.ts';
import { rfc3339Target } from './targets/rfc3339.ts';
import { rlsRequestTarget } from './targets/rls-request.ts';
import { suggestionsRequestTarget } from './targets/suggestions-request.ts';

export const TARGETS: ReadonlyArray<{ readonly target: FuzzTarget; readonly boundedInputs: number }> = [
  { target: rfc3339Target, boundedInputs: 2_000 },
  { target: respReaderTarget, boundedInputs: 2_000 },
  { target: reportRequestTarget, boundedInputs: 1_000 },
  { target: suggestionsRequestTarget, boundedInputs: 500 },
  { target: rlsRequestTarget, boundedInputs: 1_000 },
  { target: jsonRequestTarget, boundedInputs: 1_000 },
  { target: memcacheRepliesTarget, boundedInputs: 2_000 },
  { target: hpackNghttp2Target, boundedInputs: 200 },
  { target: h2ConnectionTarget, boundedInputs: 150 },
  { target: h2MutatedTarget, boundedInputs: 500 },
];
