import type { DocumentStore } from '../docstore/port';
import type { GrantStore } from './grants/port';
import type { TaskStore } from './tasks/port';

/**
 * The read side's domain stores (docs/read-stores.md): a small port per concern, each with native
 * adapters on every read-model engine. A DocumentStore gives them on its engine and connection
 * (`DocumentStore.stores()`): taken from the projection runner's writer view, their writes join
 * its batch transaction; taken from the store itself, they read committed state.
 */
export interface ReadStores {
  readonly tasks: TaskStore;
  readonly grants: GrantStore;
}

/** The domain stores of `store` (see DocumentStore.stores); refused for a view that has none. */
export function readStoresOf(store: DocumentStore): ReadStores {
  if (!store.stores) throw new Error('this read-model view has no domain stores (a view as of a position keeps no tasks nor grants)');
  return store.stores();
}
