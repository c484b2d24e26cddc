import type { Feature } from './embedded';

/** The features the embedded service runs. Permission checks and environment copy register here. */
export function embeddedFeatures(): Feature[] {
  return [];
}
