import type { Feature } from './feature';
import { checkWorkerFeatureNames, featureNames, type FeatureName } from './feature-registry';
import { environmentCopyFeature } from './features/environment-copy';
import { bulkFeature } from './features/bulk';
import { grantsFeature } from './features/grants';
import { auditLogFeature } from './features/audit-log';
import { timeTravelFeature } from './features/time-travel';
import { assertionsFeature } from './features/assertions';
import { decisionLogFeature } from './features/decision-log';
import { expiringAccessFeature } from './features/expiring-access';

/**
 * The module of each feature of the registry (app/feature-registry.ts), which names them, orders
 * them and lists their projections: a feature registered without a module here, or one here that
 * is not registered, does not compile.
 */
const featureModules: { readonly [Name in FeatureName]: () => Feature } = {
  'environment-copy': () => environmentCopyFeature(),
  'derived-grants': () => grantsFeature(),
  'bulk-facts': bulkFeature,
  'time-travel': timeTravelFeature,
  'audit-log': auditLogFeature,
  assertions: assertionsFeature,
  'decision-log': decisionLogFeature,
  'expiring-access': expiringAccessFeature,
};

/** The features the embedded service runs: every registered one, in the registry's order. */
export function embeddedFeatures(): Feature[] {
  return featureNames.map((name) => featureModules[name]());
}

/** The features whose routes a check worker serves (app/check-worker.ts). */
export function checkWorkerFeatures(): Feature[] {
  return checkWorkerFeatureNames.map((name) => featureModules[name]());
}
