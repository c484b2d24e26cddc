import '../app/tracing/projection-service';
import { embeddedFeatures } from '../app/features';
import { startProjectionService } from '../app/start-projection-service';
import { runService } from '../app/run-service';

/** `npm run start:projection`: the projections as their own process (distributed mode; see docs/distributed.md). */
runService('projection-service', (config, logger) => startProjectionService(config, logger, embeddedFeatures()));
