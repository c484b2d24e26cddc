import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startTestServer } from '../support/embedded-server';
import { projectionVersionCheckpoint } from '../../shared/read-models/layout';

/**
 * The tasks moved from a generic collection (`rm_background_tasks`, task projection version 1) to
 * their own table (`rm_tasks`, version 2, docs/read-stores.md). A data directory whose read models
 * the previous layout wrote opens: the tasks are rebuilt from the log into their table, the old
 * collection goes, and a task's result reads as it did.
 */
describe('a data directory with the tasks of the previous layout', () => {
  it('is rebuilt into the task store, and answers a task as before', async () => {
    const first = await startTestServer();
    const { dataDir } = first;
    let taskId: string;
    let answered: unknown;
    try {
      const copied = await first.api.post('/v2/projects/default/envs/production/copy/async?wait=10', {
        target_env: { new: { key: 'staging', name: 'Staging' } },
      });
      expect(copied.body).toMatchObject({ status: 'success' });
      taskId = copied.body.task_id as string;
      answered = (await first.api.get(`/v2/projects/default/envs/production/copy/async/${taskId}/result`)).body;
    } finally {
      await first.close({ keepData: true });
    }

    // The read models as the previous layout left them: the task a document of the generic collection, version 1 recorded.
    const file = join(dataDir, 'read-models.sqlite');
    const previous = new Database(file);
    try {
      const task = previous.prepare('SELECT task_id, project_id, status FROM rm_tasks WHERE task_id = ?').get(taskId) as Record<
        string,
        string
      >;
      previous.exec('DROP TABLE rm_tasks');
      previous.exec('CREATE TABLE rm_background_tasks (id TEXT PRIMARY KEY, "f_project_id", "f_status", doc TEXT NOT NULL)');
      previous
        .prepare('INSERT INTO rm_background_tasks VALUES (?, ?, ?, ?)')
        .run(task.task_id, task.project_id, task.status, JSON.stringify({ id: task.task_id, ...task }));
      previous.prepare('UPDATE rm_checkpoints SET position = 1 WHERE name = ?').run(projectionVersionCheckpoint('tasks'));
    } finally {
      previous.close();
    }

    const second = await startTestServer({ dataDir });
    try {
      expect((await second.api.get(`/v2/projects/default/envs/production/copy/async/${taskId}/result`)).body).toEqual(answered);
    } finally {
      await second.close();
    }
    const after = new Database(file, { readonly: true });
    try {
      const tables = (
        after
          .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('rm_tasks', 'rm_background_tasks')")
          .all() as Array<{ name: string }>
      ).map((t) => t.name);
      const version = after.prepare('SELECT position FROM rm_checkpoints WHERE name = ?').get(projectionVersionCheckpoint('tasks')) as {
        position: number;
      };
      expect({ tables, version: version.position }).toEqual({ tables: ['rm_tasks'], version: 2 });
    } finally {
      after.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
