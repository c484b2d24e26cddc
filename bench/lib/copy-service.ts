/**
 * One service of the distributed deployment, with the environment-copy
 * feature only, in its own process: what bench/copy.ts starts three of (command,
 * projection and task service) in its `services` mode, over one data
 * directory (the SQLite event log and read models, as `npm run start:command`,
 * `start:projection` and `start:task` share it when pointed at the same
 * DATA_DIR), so the copy is timed as it runs deployed: the task service
 * copying while the projection service projects what it writes.
 *
 *   COPY_BENCH_SERVICE=command|projection|task node -r @swc-node/register bench/lib/copy-service.ts
 */
import { environmentCopyFeature } from '../../app/features/environment-copy';
import { runService } from '../../app/run-service';
import { startCommandService } from '../../app/start-command-service';
import { startProjectionService } from '../../app/start-projection-service';
import { startTaskService } from '../../app/start-task-service';

const starters = { command: startCommandService, projection: startProjectionService, task: startTaskService };
const which = process.env.COPY_BENCH_SERVICE as keyof typeof starters;
if (!(which in starters)) throw new Error(`COPY_BENCH_SERVICE: command, projection or task, not ${which}`);
runService(`${which}-service`, (config, logger) => starters[which](config, logger, [environmentCopyFeature()]));
