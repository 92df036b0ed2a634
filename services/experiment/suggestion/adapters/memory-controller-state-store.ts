// The ControllerStateStore in memory: for unit tests, and the contract the Kafka store keeps.
import type { ControllerStateStore, SavedControllerState } from '../ports.ts';

export function createMemoryControllerStateStore(): ControllerStateStore & {
  readonly saves: ReadonlyArray<{ experiment: string } & SavedControllerState>;
} {
  const latest = new Map<string, Uint8Array>();
  const saves: ({ experiment: string } & SavedControllerState)[] = [];
  return {
    saves,
    latest: async (experiment) => latest.get(experiment),
    save: async (experiment, saved) => {
      saves.push({ experiment, ...saved });
      latest.set(experiment, Uint8Array.from(saved.state));
    },
  };
}
