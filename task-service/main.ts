import '../app/tracing/task-service';
import { embeddedFeatures } from '../app/features';
import { startTaskService } from '../app/start-task-service';
import { runService } from '../app/run-service';

/** `npm run start:task`: the background tasks (environment copy) as their own process (distributed mode; see docs/distributed.md). */
runService('task-service', (config, logger) => startTaskService(config, logger, embeddedFeatures()));
