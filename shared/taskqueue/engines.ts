import type { Config } from '../config';
import { MemoryTaskQueue } from './memory-task-queue';
import type { TaskQueue } from './port';

/**
 * Picks the task queue engine from TASK_QUEUE. The in-process queue is built
 * in; the Kafka adapter registers itself with `registerTaskQueueEngine`. A
 * configured engine that is not registered fails loudly.
 */
type Factory = (config: Config) => Promise<TaskQueue>;
const engines = new Map<string, Factory>([['memory', async () => new MemoryTaskQueue()]]);

export function registerTaskQueueEngine(name: string, factory: Factory): void {
  engines.set(name, factory);
}

export async function createTaskQueue(config: Config): Promise<TaskQueue> {
  const factory = engines.get(config.TASK_QUEUE);
  if (!factory) throw new Error(`task queue engine '${config.TASK_QUEUE}' is not available in this build`);
  return factory(config);
}
