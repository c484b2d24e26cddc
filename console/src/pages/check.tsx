import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api/client';
import type { CheckAnswer, DecisionHistory } from '../api/types';
import { ExplanationView } from '../components/chain';
import { DecisionHistoryView } from '../components/decision-history';
import { useDebounced, useEventStream } from '../components/hooks';
import { PositionPicker } from '../components/position-picker';
import { RenderGuard } from '../components/render-guard';
import { ErrorNote, TextInput } from '../components/widgets';
import { asOfText, parseAsOf, type AsOf } from '../as-of';
import { eventsPath, type Ctx } from '../context';
import { questionOf, type Question } from '../queries';
import { consoleCheckKey, CONSOLE_KEY_NAME } from '../session';

export function CheckPage({ ctx, params }: { ctx: Ctx; params: URLSearchParams }) {
  const checkKey = ctx.session.checkKeys[ctx.env];
  const [user, setUser] = useState(params.get('user') ?? '');
  const [action, setAction] = useState(params.get('action') ?? '');
  const [resource, setResource] = useState(params.get('resource') ?? '');
  const [tenant, setTenant] = useState(params.get('tenant') ?? '');
  const [asOf, setAsOf] = useState<AsOf | null>(parseAsOf(params.get('as_of')));
  // `seq` numbers the answers: each is drawn afresh, so nothing of the previous check's chain stays under a new verdict.
  const [answer, setAnswer] = useState<{
    seq: number;
    question: Question;
    result: CheckAnswer;
    position: number | null;
    asOf: AsOf | null;
  } | null>(null);
  const [history, setHistory] = useState<{ question: Question; value: DecisionHistory } | null>(null);
  const [liveHistory, setLiveHistory] = useState(true);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const question = questionOf(user, action, resource, tenant);

  const check = async (at: AsOf | null = asOf) => {
    if (!question || !checkKey) return;
    setBusy(true);
    setError(null);
    try {
      const body = { ...question, explain: true, ...(at !== null ? { as_of: at } : {}) };
      const res = await ctx.api.post<CheckAnswer>('/allowed', body, { key: checkKey });
      setAnswer((previous) => ({ seq: (previous?.seq ?? 0) + 1, question, result: res.data, position: res.position, asOf: at }));
    } catch (err) {
      // A failed check leaves no earlier verdict on screen to be read as its answer.
      setAnswer(null);
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };

  const loadHistory = async (q: Question | null = question) => {
    if (!q || !checkKey) return;
    try {
      const res = await ctx.api.post<DecisionHistory>('/allowed/history', q, { key: checkKey });
      setHistory({ question: q, value: res.data });
    } catch (err) {
      setError(
        err instanceof ApiError && err.status === 404
          ? new Error('This service has no decision history (POST /allowed/history).')
          : (err as Error),
      );
    }
  };

  // The history follows the log while it is shown: any new event may change the decision, and the history says whether it did.
  const refresh = useDebounced(() => void loadHistory(history?.question ?? null), 250);
  const streamStatus = useEventStream(ctx.session.key, eventsPath(ctx), {}, history !== null && liveHistory, refresh);

  useEffect(() => {
    if (params.get('run') === '1' && question && checkKey) void check();
  }, []);

  if (!checkKey) return <CheckKeyPrompt ctx={ctx} />;
  return (
    <section>
      <h2>Check</h2>
      <form
        class="check-form"
        onSubmit={(e) => {
          e.preventDefault();
          void check();
        }}
      >
        <TextInput label="user" name="user" value={user} onChange={setUser} placeholder="alice" />
        <TextInput label="action" name="action" value={action} onChange={setAction} placeholder="read" />
        <TextInput label="resource" name="resource" value={resource} onChange={setResource} placeholder="file:readme, or file" />
        <TextInput label="tenant" name="tenant" value={tenant} onChange={setTenant} placeholder="(optional)" />
        <button type="submit" disabled={!question || busy}>
          Check
        </button>
        <button type="button" disabled={!question} onClick={() => void loadHistory()}>
          Decision history
        </button>
      </form>
      <PositionPicker
        ctx={ctx}
        value={asOf}
        resolved={answer && answer.asOf === asOf ? answer.position : null}
        onChange={(p) => {
          setAsOf(p);
          if (answer) void check(p);
        }}
      />
      <ErrorNote error={error} />
      {answer ? (
        <div class="card" data-testid="check-result" key={answer.seq}>
          <p class="muted">
            {answer.asOf !== null ? `As of ${asOfText(answer.asOf)}` : 'Now'}
            {answer.position !== null ? ` · decided at log position ${answer.position}` : ''}
          </p>
          <RenderGuard what="this check's explanation">
            {answer.result.explanation ? (
              <ExplanationView explanation={answer.result.explanation} user={answer.question.user} action={answer.question.action} />
            ) : (
              <p>{answer.result.allow ? 'ALLOW' : 'DENY'}</p>
            )}
          </RenderGuard>
        </div>
      ) : null}
      {history ? (
        <div class="card" data-testid="decision-history">
          <h3>
            Decision history{' '}
            <label class="inline">
              <input type="checkbox" checked={liveHistory} onChange={(e) => setLiveHistory(e.currentTarget.checked)} /> live ({streamStatus}
              )
            </label>
          </h3>
          <RenderGuard what="this decision history" key={JSON.stringify(history.question)}>
            <DecisionHistoryView
              history={history.value}
              question={history.question}
              onPick={(position) => {
                setAsOf(position);
                void check(position);
              }}
              go={ctx.go}
            />
          </RenderGuard>
        </div>
      ) : null}
    </section>
  );
}

/** `/allowed` takes only environment keys: paste one, or make a read-level one for this environment (an admin key can). */
function CheckKeyPrompt({ ctx }: { ctx: Ctx }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<Error | null>(null);
  const save = (k: string, consoleKeyId?: string) =>
    ctx.update({
      ...ctx.session,
      checkKeys: { ...ctx.session.checkKeys, [ctx.env]: k },
      ...(consoleKeyId ? { consoleKeys: { ...ctx.session.consoleKeys, [ctx.env]: consoleKeyId } } : {}),
    });
  const create = async () => {
    try {
      const key = await consoleCheckKey(ctx.api, ctx.proj, ctx.env);
      save(key.secret, key.id);
    } catch (err) {
      setError(err as Error);
    }
  };
  return (
    <section class="card">
      <h2>Check</h2>
      <p>Permission checks are asked with an environment's API key; you signed in with a project or organisation key.</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (key.trim()) save(key.trim());
        }}
      >
        <label class="field">
          <span>environment key</span>
          <input name="check-key" type="password" autoComplete="off" value={key} onInput={(e) => setKey(e.currentTarget.value)} />
        </label>
        <button type="submit">Use this key</button> or{' '}
        <button type="button" name="create-check-key" onClick={() => void create()}>
          Create a read-level key for this environment
        </button>
      </form>
      <p class="muted">
        The console keeps one such key per environment, named <code>{CONSOLE_KEY_NAME}</code>: it reuses it (with a new secret) if one is
        there, and revokes it when you sign out. Closing the tab without signing out leaves it in place until the next sign-in here.
      </p>
      <ErrorNote error={error} />
    </section>
  );
}
