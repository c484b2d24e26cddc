import type { Feature } from '../feature';
import { featureRegistry } from '../feature-registry';
import { decisionHistoryRoutes } from '../../command-service/routes/checks/history';

/**
 * Time travel: the history read model (every version of every environment-scoped
 * document, with the log positions it was current in), which the reads and
 * checks answer `as_of` from, and the history of a decision
 * (`POST /allowed/history`). docs/audit.md, "Time travel".
 */
export function timeTravelFeature(): Feature {
  return {
    name: 'time-travel',
    projections: (rm) => featureRegistry['time-travel'].projections(rm),
    routes:
      ({ eventStore }) =>
      ({ root }) =>
        decisionHistoryRoutes(root, eventStore),
  };
}
