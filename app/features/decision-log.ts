import { decisionLogRoutes } from '../../command-service/routes/decision-logs';
import type { Feature } from '../feature';

/**
 * Decision logs (docs/decision-logs.md): the read endpoints of the decisions the PDP endpoints
 * record (their recorder is a service, `services.decisionLog`, so every process that answers
 * checks records, a check worker included; this feature only reads).
 */
export function decisionLogFeature(): Feature {
  return { name: 'decision-log', routes: () => decisionLogRoutes() };
}
