import { useEffect, useRef, useState } from 'preact/hooks';
import { seg } from '../api/client';
import type { CopyTask } from '../api/types';
import { ErrorNote, TextInput } from '../components/widgets';
import type { Ctx } from '../context';

interface Started {
  task: CopyTask;
  source: string;
  target: string;
}

/**
 * Environment copy: starts `POST …/copy/async`, then holds `GET …/result?wait=5`
 * until the task ends, drawing its progress; the result is the new
 * environment (switch to it) or the task's error.
 */
export function CopyPage({ ctx }: { ctx: Ctx }) {
  const [key, setKey] = useState('');
  const [name, setName] = useState('');
  const [facts, setFacts] = useState(true);
  const [asOf, setAsOf] = useState('');
  const [tasks, setTasks] = useState<Started[]>([]);
  const [error, setError] = useState<Error | null>(null);
  const base = `/v2/projects/${seg(ctx.proj)}/envs/${seg(ctx.env)}/copy/async`;
  const envKeyOnly = Boolean(ctx.session.scope.environment_id);

  const start = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const trimmed = asOf.trim();
      const body = {
        target_env: { new: { key: key.trim(), name: name.trim() || key.trim() } },
        scope: { facts },
        ...(trimmed ? { as_of: /^\d+$/.test(trimmed) ? Number(trimmed) : trimmed } : {}),
      };
      const res = await ctx.api.post<CopyTask>(base, body);
      setTasks((t) => [{ task: res.data, source: ctx.env, target: key.trim() }, ...t]);
    } catch (err) {
      setError(err as Error);
    }
  };

  return (
    <section>
      <h2>Copy this environment</h2>
      {envKeyOnly ? <p class="muted">Copies need a project or organisation API key; you signed in with an environment key.</p> : null}
      <form class="filters" onSubmit={(e) => void start(e)}>
        <TextInput label="new environment key" name="copy-key" value={key} onChange={setKey} placeholder="staging-copy" />
        <TextInput label="name" name="copy-name" value={name} onChange={setName} placeholder="(the key)" />
        <TextInput label="as of (position or ISO time)" name="copy-as-of" value={asOf} onChange={setAsOf} placeholder="(now)" />
        <label class="inline">
          <input type="checkbox" checked={facts} onChange={(e) => setFacts(e.currentTarget.checked)} /> with facts (tenants, users,
          instances, assignments, tuples)
        </label>
        <button type="submit" disabled={!key.trim() || envKeyOnly}>
          Start the copy
        </button>
      </form>
      <ErrorNote error={error} />
      {tasks.map((t) => (
        <TaskView key={t.task.task_id} ctx={ctx} started={t} />
      ))}
    </section>
  );
}

function TaskView({ ctx, started }: { ctx: Ctx; started: Started }) {
  const [task, setTask] = useState(started.task);
  const [error, setError] = useState<Error | null>(null);
  const alive = useRef(true);
  useEffect(() => {
    alive.current = true;
    const controller = new AbortController();
    const path = `/v2/projects/${seg(ctx.proj)}/envs/${seg(started.source)}/copy/async/${seg(started.task.task_id)}/result`;
    void (async () => {
      let current = started.task;
      while (alive.current && current.status === 'processing') {
        try {
          current = await ctx.api.get<CopyTask>(path, { wait: 2 }, controller.signal);
          if (alive.current) setTask(current);
        } catch (err) {
          if (!alive.current) return;
          setError(err as Error);
          await new Promise((r) => setTimeout(r, 2000));
        }
      }
    })();
    return () => {
      alive.current = false;
      controller.abort();
    };
  }, [started.task.task_id]);
  const p = task.progress;
  const fraction =
    p && p.source_events_total > 0 ? Math.min(1, p.source_events_read / p.source_events_total) : task.status === 'success' ? 1 : 0;
  return (
    <div class="card task" data-testid="copy-task" data-status={task.status}>
      <p>
        Copy to <code>{started.target}</code> · task <code>{task.task_id}</code> ·{' '}
        <strong class={`task-status ${task.status}`}>{task.status}</strong>
      </p>
      <progress max={1} value={fraction} />
      {p ? (
        <span class="muted">
          {' '}
          {p.source_events_read.toLocaleString('en')} of {p.source_events_total.toLocaleString('en')} source events read,{' '}
          {p.events_copied.toLocaleString('en')} copied
        </span>
      ) : null}
      {task.result ? (
        <p>
          Created environment <code>{task.result.key}</code> ({task.result.id}).{' '}
          <button type="button" onClick={() => ctx.update({ ...ctx.session, env: task.result!.id })}>
            Switch to it
          </button>
        </p>
      ) : null}
      {task.error ? (
        <p class="error">
          {task.error.error_code}: {task.error.message}
        </p>
      ) : null}
      <ErrorNote error={error} />
    </div>
  );
}
