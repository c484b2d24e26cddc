import type { Feature } from './feature';
import { environmentCopyFeature } from './features/environment-copy';
import { bulkFeature } from './features/bulk';
import { grantsFeature } from './features/grants';
import { auditLogFeature } from './features/audit-log';
import { timeTravelFeature } from './features/time-travel';
import { assertionsFeature } from './features/assertions';
import { decisionLogFeature } from './features/decision-log';

/** The features the embedded service runs. Permission checks and environment copy register here. */
export function embeddedFeatures(): Feature[] {
  return [
    environmentCopyFeature(),
    grantsFeature(),
    bulkFeature(),
    timeTravelFeature(),
    auditLogFeature(),
    assertionsFeature(),
    decisionLogFeature(),
  ];
}
