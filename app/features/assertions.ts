import type { Feature } from '../feature';
import { readStoresOf } from '../../shared/read-stores/port';
import { GrantQueries } from '../../command-service/grant-queries/grant-queries';
import { assertionRoutes } from '../../command-service/routes/assertions';
import { scratchCopier } from '../scratch-copy';

/**
 * Saved assertions: tests of an environment's policy, run now or as of a past position, kept in
 * git as a file, and a dry run of a model edit against them (docs/assertions.md).
 */
export function assertionsFeature(): Feature {
  return {
    name: 'assertions',
    routes:
      ({ config, logger, eventStore, services, documentStore }) =>
      ({ schema }) =>
        assertionRoutes(
          schema,
          GrantQueries.overStored(services.readModels, readStoresOf(documentStore).grants, () => services.clock.now()),
          scratchCopier({ config, logger, eventStore, services }),
        ),
  };
}
