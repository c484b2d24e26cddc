import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { Api } from './api/client';
import type { Environment, KeyScope, Project } from './api/types';
import { ErrorNote } from './components/widgets';
import { parseRoute, type Ctx } from './context';
import { CheckPage } from './pages/check';
import { CopyPage } from './pages/copy';
import { DecisionsPage } from './pages/decisions';
import { FactsPage } from './pages/facts';
import { ModelPage } from './pages/model';
import { PolicyPage } from './pages/policy';
import { TestsPage } from './pages/tests';
import { TimelinePage } from './pages/timeline';
import {
  clearSession,
  lastEnvironment,
  loadSession,
  preferredOf,
  rememberEnvironment,
  revokeConsoleKeys,
  saveSession,
  sessionFor,
  type Session,
} from './session';
import './styles.css';

const PAGES: Array<{ page: string; title: string }> = [
  { page: 'model', title: 'Model' },
  { page: 'policy', title: 'Policy' },
  { page: 'facts', title: 'Facts' },
  { page: 'check', title: 'Check' },
  { page: 'tests', title: 'Tests' },
  { page: 'timeline', title: 'Timeline' },
  { page: 'decisions', title: 'Decisions' },
  { page: 'copy', title: 'Copy' },
];

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}

function App() {
  const [session, setSession] = useState<Session | null>(() => loadSession());
  const hash = useHash();
  const update = (next: Session | null) => {
    if (next) saveSession(next);
    else clearSession();
    setSession(next);
  };
  if (!session) return <SignIn onSignedIn={update} />;
  return <Shell session={session} update={update} hash={hash} />;
}

function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const scope = await new Api(key.trim()).get<KeyScope>('/v2/api-key/scope');
      onSignedIn(sessionFor(key.trim(), scope));
    } catch (err) {
      setError(err instanceof Error ? err : new Error(String(err)));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin">
      <h1>rebac console</h1>
      <form onSubmit={(e) => void submit(e)}>
        <label class="field">
          <span>API key</span>
          <input name="api-key" type="password" autoComplete="off" value={key} onInput={(e) => setKey(e.currentTarget.value)} required />
        </label>
        <button type="submit" disabled={busy || key.trim() === ''}>
          Sign in
        </button>
        <ErrorNote error={error} />
      </form>
      <p class="muted">
        An organisation, project or environment key. It is kept in this tab's session storage only, and sent to this service's API only.
        Checks need an environment key; copies need a project or organisation key.
      </p>
    </main>
  );
}

function Shell({ session, update, hash }: { session: Session; update: (s: Session | null) => void; hash: string }) {
  const api = useMemo(() => new Api(session.key), [session.key]);
  const { page, params } = parseRoute(hash);
  const go = (to: string) => {
    location.hash = to;
  };
  const ready = session.project !== null && session.env !== null;
  const ctx: Ctx | null = ready ? { api, session, proj: session.project!, env: session.env!, update, go } : null;
  return (
    <div class="shell">
      <header>
        <strong class="brand">rebac console</strong>
        <nav>
          {PAGES.map((p) => (
            <a key={p.page} href={`#/${p.page}`} class={p.page === page ? 'active' : ''}>
              {p.title}
            </a>
          ))}
        </nav>
        <EnvPicker api={api} session={session} update={update} />
        <SignOut api={api} session={session} update={update} />
      </header>
      <main>
        {!ctx ? (
          <p>Choose a project and an environment.</p>
        ) : page === 'facts' ? (
          <FactsPage ctx={ctx} params={params} />
        ) : page === 'check' ? (
          <CheckPage ctx={ctx} params={params} />
        ) : page === 'timeline' ? (
          <TimelinePage ctx={ctx} params={params} />
        ) : page === 'policy' ? (
          <PolicyPage ctx={ctx} params={params} />
        ) : page === 'decisions' ? (
          <DecisionsPage ctx={ctx} params={params} />
        ) : page === 'tests' ? (
          <TestsPage ctx={ctx} />
        ) : page === 'copy' ? (
          <CopyPage ctx={ctx} />
        ) : (
          <ModelPage ctx={ctx} />
        )}
      </main>
    </div>
  );
}

/** Signs out after revoking the check keys the console made for this session (it says which it could not). */
function SignOut({ api, session, update }: { api: Api; session: Session; update: (s: Session | null) => void }) {
  const [note, setNote] = useState<string | null>(null);
  const made = Object.keys(session.consoleKeys ?? {}).length;
  return (
    <span class="sign-out">
      {note ? <span class="error">{note}</span> : null}
      <button
        type="button"
        class="link"
        name="sign-out"
        title={made ? `revokes the ${made} check key(s) the console made` : undefined}
        onClick={() =>
          void revokeConsoleKeys(api, session).then((failed) =>
            failed.length && !note ? setNote(`Could not revoke key(s) ${failed.join(', ')}; sign out again to leave them.`) : update(null),
          )
        }
      >
        sign out
      </button>
    </span>
  );
}

/** The environment shown: fixed for an environment key, chosen from the lists otherwise. */
function EnvPicker({ api, session, update }: { api: Api; session: Session; update: (s: Session) => void }) {
  const [projects, setProjects] = useState<Project[]>([]);
  const [envs, setEnvs] = useState<Environment[]>([]);
  const [copies, setCopies] = useState<Set<string>>(new Set());
  const [error, setError] = useState<Error | null>(null);
  const fixedProject = Boolean(session.scope.project_id);
  const fixedEnv = Boolean(session.scope.environment_id);
  useEffect(() => {
    if (fixedProject) {
      api.get<Project>(`/v2/projects/${session.scope.project_id!}`).then((p) => setProjects([p]), setError);
      return;
    }
    api.get<Project[]>('/v2/projects', { per_page: 100 }).then((list) => {
      setProjects(list);
      const open = preferredOf(list, lastEnvironment()?.project ?? null, 'default');
      if (session.project === null && open) update({ ...session, project: open.id, env: null });
    }, setError);
    // Copies are marked: the organisation's log says which environments a copy made (organisation keys only read it).
    api
      .get<{ data: Array<{ data: { id?: string; copied_from_task_id?: string | null } }> }>('/v2/events', {
        stream: 'org',
        type: 'EnvironmentCreated',
        order: 'desc',
        limit: 1000,
      })
      .then(
        (page) => setCopies(new Set(page.data.filter((e) => e.data.copied_from_task_id && e.data.id).map((e) => e.data.id!))),
        () => setCopies(new Set()),
      );
  }, [api]);
  useEffect(() => {
    if (session.project === null) return;
    if (fixedEnv) {
      api.get<Environment>(`/v2/projects/${session.project}/envs/${session.env!}`).then((e) => setEnvs([e]), setError);
      return;
    }
    api.get<Environment[]>(`/v2/projects/${session.project}/envs`, { per_page: 100 }).then((list) => {
      setEnvs(list);
      // Sign-in opens the environment used last, else `production`.
      const open = preferredOf(list, lastEnvironment()?.env ?? null, 'production');
      if ((session.env === null || !list.some((e) => e.id === session.env)) && open) update({ ...session, env: open.id });
    }, setError);
  }, [api, session.project, session.env]);
  useEffect(() => {
    if (session.project !== null && session.env !== null) rememberEnvironment(session.project, session.env);
  }, [session.project, session.env]);
  return (
    <span class="env-picker">
      <select
        aria-label="project"
        disabled={fixedProject}
        value={session.project ?? ''}
        onChange={(e) => update({ ...session, project: e.currentTarget.value, env: null })}
      >
        {projects.map((p) => (
          <option key={p.id} value={p.id}>
            {p.key}
          </option>
        ))}
      </select>
      <select
        aria-label="environment"
        disabled={fixedEnv}
        value={session.env ?? ''}
        onChange={(e) => update({ ...session, env: e.currentTarget.value })}
      >
        {envs.map((env) => (
          <option key={env.id} value={env.id}>
            {env.key}
            {copies.has(env.id) ? ' (copy)' : ''}
          </option>
        ))}
      </select>
      {error ? <span class="error">{error.message}</span> : null}
    </span>
  );
}

render(<App />, document.getElementById('app')!);
