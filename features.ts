import type { Feature } from './embedded';
import { environmentCopyFeature } from './task-service/feature';
import { bulkFeature } from './command-service/routes/bulk-feature';
import { grantsFeature } from './projection-service/grants/feature';

/** The features the embedded service runs. Permission checks and environment copy register here. */
export function embeddedFeatures(): Feature[] {
  return [environmentCopyFeature(), grantsFeature(), bulkFeature()];
}
