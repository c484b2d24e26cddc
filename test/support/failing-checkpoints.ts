import type { DocumentStore } from '../../shared/docstore/port';

/**
 * Makes `store`'s saves of the checkpoint `name` throw, as an unreachable store's do, the first
 * `times` times; later saves, and saves of other checkpoints, go through. Returns how many it made
 * fail so far.
 */
export function failCheckpointSaves(store: DocumentStore, name: string, times: number): { readonly failures: number } {
  const save = store.saveCheckpoint.bind(store);
  const state = { failures: 0 };
  store.saveCheckpoint = async (saved, expected, next) => {
    if (saved === name && state.failures < times) {
      state.failures += 1;
      throw new Error(`the store is unreachable (simulated): checkpoint ${name} not saved`);
    }
    return save(saved, expected, next);
  };
  return state;
}
