import { embeddedFeatures } from '../features';
import { startProjectionService } from '../shared/composition/start-projection-service';
import { runService } from '../shared/composition/run-service';

/** `npm run start:projection`: the projections as their own process (distributed mode; see docs/distributed.md). */
runService('projection-service', (config, logger) => startProjectionService(config, logger, embeddedFeatures()));
