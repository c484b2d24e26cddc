import { embeddedFeatures } from '../features';
import { startTaskService } from '../shared/composition/start-task-service';
import { runService } from '../shared/composition/run-service';

/** `npm run start:task`: the background tasks (environment copy) as their own process (distributed mode; see docs/distributed.md). */
runService('task-service', (config, logger) => startTaskService(config, logger, embeddedFeatures()));
