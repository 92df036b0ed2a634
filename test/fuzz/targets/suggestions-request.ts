// GetSuggestionsRequest's reader (suggestions-request.ts) against protobufjs through proto-loader,
// the method's own deserializer: whenever the reader answers, the object is the one proto-loader
// gives (same keys, same values); when proto-loader refuses the bytes, the reader must not answer.
import { readSuggestionsRequest } from '../../../services/experiment/suggestion/adapters/suggestions-request.ts';
import { loadPackageDefinition, lookupService } from '../../../shared/grpc.ts';
import { canonical, check, type FuzzTarget, outcome } from '../fuzz-core.ts';
import { messageType, randomMessage } from '../protobuf-random.ts';

const Suggestion = lookupService(loadPackageDefinition(['api/v1beta1/api.proto']), 'api.v1.beta1.Suggestion');
const generic = Suggestion.service.GetSuggestions!.requestDeserialize as (bytes: Buffer) => unknown;
const requestType = messageType('api/v1beta1/api.proto', 'api.v1.beta1.GetSuggestionsRequest');

/** Key order counts too: the reader promises proto-loader's. */
export function compareSuggestionsRequest(bytes: Buffer): string | undefined {
  const expected = outcome(() => generic(bytes));
  const ours = outcome(() => readSuggestionsRequest(bytes));
  if (!ours.ok) {
    if (expected.ok) return `ours threw ${(ours.error as Error).message} where protobufjs decodes`;
    return undefined;
  }
  if (ours.value === undefined) return undefined; // stepped aside: the generic decoder reads it
  if (!expected.ok) return `ours read bytes protobufjs refuses (${(expected.error as Error).message})`;
  const mine = canonical(ours.value);
  const theirs = canonical(expected.value);
  return mine === theirs ? undefined : `ours ${mine}\n    proto-loader ${theirs}`;
}

export const suggestionsRequestTarget: FuzzTarget = {
  name: 'suggestions-request',
  oracle: 'protobufjs (proto-loader) decode',
  run(rng, count, found) {
    for (let i = 0; i < count; i++) {
      const bytes = randomMessage(rng, requestType);
      check(
        found,
        () => bytes.toString('hex'),
        () => compareSuggestionsRequest(bytes),
      );
    }
  },
};
