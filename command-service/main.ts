import { embeddedFeatures } from '../features';
import { startCommandService } from '../shared/composition/start-command-service';
import { runService } from '../shared/composition/run-service';

/** `npm run start:command`: the HTTP API as its own process (distributed mode; see docs/distributed.md). */
runService('command-service', (config, logger) => startCommandService(config, logger, embeddedFeatures()));
