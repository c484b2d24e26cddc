import '../app/tracing/command-service';
import { embeddedFeatures } from '../app/features';
import { startCommandService } from '../app/start-command-service';
import { runService } from '../app/run-service';

/** `npm run start:command`: the HTTP API as its own process (distributed mode; see docs/distributed.md). */
runService('command-service', (config, logger) => startCommandService(config, logger, embeddedFeatures()));
