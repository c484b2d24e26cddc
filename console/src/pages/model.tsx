import type { Api } from '../api/client';
import { ApiError, seg } from '../api/client';
import type { ConditionSet, Relation, Resource, Role, SetRule } from '../api/types';
import { conditionText } from '../conditions';
import { useLoad } from '../components/hooks';
import { ModelGraph } from '../components/model-graph';
import { ErrorNote } from '../components/widgets';
import { factsPath, schemaPath, type Ctx } from '../context';
import type { ModelType } from '../model/layout';

/** Most resource types drawn (the schema of any real environment is far smaller); beyond it the page says so. */
const MAX_TYPES = 200;
const PER_PAGE = 100;

/** Every page of a list, up to `max` items. */
async function allPages<T>(api: Api, path: string, max: number, signal: AbortSignal): Promise<{ items: T[]; more: boolean }> {
  const items: T[] = [];
  for (let page = 1; items.length < max; page++) {
    // Most lists are arrays; a resource type's relations come as a page, as Permit answers them.
    const body = await api.get<T[] | { data: T[] }>(path, { page, per_page: PER_PAGE }, signal);
    const batch = Array.isArray(body) ? body : body.data;
    items.push(...batch);
    if (batch.length < PER_PAGE) return { items, more: false };
  }
  return { items: items.slice(0, max), more: true };
}

/** A few requests at a time. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

interface Model {
  types: ModelType[];
  tenantRoles: Role[];
  truncated: boolean;
  /** Attribute rules (ABAC); null from a service without them. */
  rules: { sets: ConditionSet[]; setRules: SetRule[]; resourceKeys: Map<string, string> } | null;
}

/** Condition sets and set rules; null when the service has no such API (404). */
async function loadRules(ctx: Ctx, signal: AbortSignal): Promise<{ sets: ConditionSet[]; setRules: SetRule[] } | null> {
  try {
    const [sets, setRules] = await Promise.all([
      allPages<ConditionSet>(ctx.api, `${schemaPath(ctx)}/condition_sets`, 1000, signal),
      allPages<SetRule>(ctx.api, `${factsPath(ctx)}/set_rules`, 1000, signal),
    ]);
    return { sets: sets.items, setRules: setRules.items };
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

async function loadModel(ctx: Ctx, signal: AbortSignal): Promise<Model> {
  const base = schemaPath(ctx);
  const [resources, tenantRoles, rules] = await Promise.all([
    allPages<Resource>(ctx.api, `${base}/resources`, MAX_TYPES, signal),
    allPages<Role>(ctx.api, `${base}/roles`, 1000, signal),
    loadRules(ctx, signal),
  ]);
  const types = await mapLimit(resources.items, 4, async (r): Promise<ModelType> => {
    const [roles, relations] = await Promise.all([
      allPages<Role>(ctx.api, `${base}/resources/${seg(r.key)}/roles`, 1000, signal),
      allPages<Relation>(ctx.api, `${base}/resources/${seg(r.key)}/relations`, 1000, signal),
    ]);
    return {
      key: r.key,
      name: r.name,
      actions: Object.keys(r.actions ?? {}),
      roles: roles.items.map((role) => ({
        key: role.key,
        permissions: role.permissions,
        extends: role.extends ?? [],
        derivations: role.granted_to?.users_with_role ?? [],
      })),
      relations: relations.items.map((rel) => ({ key: rel.key, subject: rel.subject_resource })),
    };
  });
  const resourceKeys = new Map(resources.items.map((r) => [r.id, r.key]));
  return { types, tenantRoles: tenantRoles.items, truncated: resources.more, rules: rules && { ...rules, resourceKeys } };
}

export function ModelPage({ ctx }: { ctx: Ctx }) {
  const model = useLoad((signal) => loadModel(ctx, signal), [ctx.api, ctx.proj, ctx.env]);
  return (
    <section>
      <h2>
        Model{' '}
        <button type="button" class="link" onClick={model.reload}>
          reload
        </button>
      </h2>
      <ErrorNote error={model.error} />
      {model.loading && !model.value ? <p class="muted">Loading the schema…</p> : null}
      {model.value ? <ModelView model={model.value} /> : null}
    </section>
  );
}

function ModelView({ model }: { model: Model }) {
  if (model.types.length === 0 && model.tenantRoles.length === 0 && !model.rules?.sets.length)
    return <p class="muted">This environment has no resource types yet.</p>;
  return (
    <>
      {model.truncated ? <p class="muted">Only the first {MAX_TYPES} resource types are drawn.</p> : null}
      <p class="legend">
        <span class="key-relation">━ relation (subject → object)</span>{' '}
        <span class="key-derive">━ derivation rule (role on subject ⇒ role on object)</span> <span>⊇ extends</span>
      </p>
      <ModelGraph types={model.types} />
      <h3>Roles and rules</h3>
      <table class="data" data-testid="model-table">
        <thead>
          <tr>
            <th>type</th>
            <th>role</th>
            <th>permissions</th>
            <th>extends</th>
            <th>derived from</th>
          </tr>
        </thead>
        <tbody>
          {model.types.flatMap((t) =>
            t.roles.map((r) => (
              <tr key={`${t.key}#${r.key}`}>
                <td>{t.key}</td>
                <td>{r.key}</td>
                <td>{r.permissions.join(', ')}</td>
                <td>{r.extends.join(', ')}</td>
                <td>{r.derivations.map((d) => `${d.role} on ${d.on_resource} via ${d.linked_by_relation}`).join('; ')}</td>
              </tr>
            )),
          )}
          {model.tenantRoles.map((r) => (
            <tr key={`tenant#${r.key}`}>
              <td>
                <em>tenant role</em>
              </td>
              <td>{r.key}</td>
              <td>{r.permissions.join(', ')}</td>
              <td>{(r.extends ?? []).join(', ')}</td>
              <td />
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Relations</h3>
      <ul>
        {model.types.flatMap((t) =>
          t.relations.map((rel) => (
            <li key={`${t.key}.${rel.key}`}>
              <code>{rel.subject}</code> —{rel.key}→ <code>{t.key}</code>
            </li>
          )),
        )}
      </ul>
      {model.rules ? <RulesView rules={model.rules} /> : null}
    </>
  );
}

/**
 * Attribute rules (ABAC, docs/abac.md): each set rule — the user set gets the
 * permission on the resource set — with the conditions of both sets, then
 * every condition set (also those no rule uses yet).
 */
function RulesView({ rules }: { rules: NonNullable<Model['rules']> }) {
  const byKey = new Map(rules.sets.map((s) => [s.key, s]));
  const setText = (key: string) => {
    const set = byKey.get(key);
    // A rule may name a role or a resource type as its set (`is_role`, `is_resource`): no conditions of its own.
    return set ? conditionText(set.conditions) : 'a role or resource type (no conditions)';
  };
  return (
    <section data-testid="model-rules">
      <h3>Rules (attribute-based)</h3>
      {rules.setRules.length === 0 && rules.sets.length === 0 ? <p class="muted">No condition sets or set rules.</p> : null}
      {rules.setRules.length > 0 ? (
        <table class="data" data-testid="set-rules">
          <thead>
            <tr>
              <th>set rule</th>
              <th>user set</th>
              <th>permission</th>
              <th>resource set</th>
            </tr>
          </thead>
          <tbody>
            {rules.setRules.map((r) => (
              <tr key={r.id} data-set-rule={r.key}>
                <td>
                  <code>{r.key}</code>
                </td>
                <td>
                  <strong>{r.user_set}</strong>
                  <div class="condition">{setText(r.user_set)}</div>
                </td>
                <td>
                  <code>{r.permission}</code>
                </td>
                <td>
                  <strong>{r.resource_set}</strong>
                  <div class="condition">{setText(r.resource_set)}</div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {rules.sets.length > 0 ? (
        <table class="data" data-testid="condition-sets">
          <thead>
            <tr>
              <th>condition set</th>
              <th>kind</th>
              <th>conditions</th>
            </tr>
          </thead>
          <tbody>
            {rules.sets.map((s) => (
              <tr key={s.id} data-condition-set={s.key}>
                <td>
                  <code>{s.key}</code> {s.name !== s.key ? <span class="muted">{s.name}</span> : null}
                </td>
                <td>
                  {s.type === 'userset'
                    ? 'user set'
                    : `resource set of ${(s.resource_id && rules.resourceKeys.get(s.resource_id)) ?? 'a resource type'}`}
                </td>
                <td class="condition">{conditionText(s.conditions)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
