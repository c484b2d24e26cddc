import { useState } from 'preact/hooks';
import { loadPolicy, type AttributeDef, type Edit, type PolicyModel, type PolicyPaths } from '../api/policy';
import {
  createResource,
  createRole,
  createUserAttribute,
  deleteRole,
  deleteUserAttribute,
  saveMatrix,
  updateUserAttribute,
} from '../api/policy-edits';
import { useLoad } from '../components/hooks';
import { RoleMatrix } from '../components/policy-matrix';
import { ChangePreview } from '../components/policy-preview';
import { ATTRIBUTE_TYPES, DefinitionForm, NewRoleForm, ResourceEditor } from '../components/policy-resource';
import { FieldRow, ListEditor } from '../components/policy-form';
import { ConditionSetsEditor, SetRulesEditor } from '../components/policy-sets';
import { ErrorNote, TextInput } from '../components/widgets';
import { factsPath, schemaPath, type Ctx } from '../context';
import './policy.css';

const TABS: Array<{ tab: string; title: string }> = [
  { tab: 'resources', title: 'Resource types' },
  { tab: 'roles', title: 'Top-level roles' },
  { tab: 'sets', title: 'Condition sets' },
  { tab: 'rules', title: 'Set rules' },
  { tab: 'users', title: 'User attributes' },
];

/**
 * The policy editor: the environment's model through the public API's schema
 * endpoints. Every edit is first shown as the calls it makes and the object
 * before → after, with an optional reason sent as `X-Audit-Metadata`; only
 * *Apply* sends it, and the model is read again after it.
 */
export function PolicyPage({ ctx, params }: { ctx: Ctx; params: URLSearchParams }) {
  const paths: PolicyPaths = { schema: schemaPath(ctx), facts: factsPath(ctx) };
  const model = useLoad((signal) => loadPolicy(ctx.api, paths, signal), [ctx.api, ctx.proj, ctx.env]);
  const [edit, setEdit] = useState<Edit | null>(null);
  /** Bumped by each applied edit: the forms start afresh (an applied edit's inputs are done with). */
  const [generation, setGeneration] = useState(0);
  /** The last edit applied, and the model read before it: the note shows once the model is read again. */
  const [applied, setApplied] = useState<{ title: string; position: number | null; readBefore: PolicyModel | undefined } | null>(null);
  const tab = params.get('tab') ?? 'resources';
  const propose = (next: Edit) => {
    setApplied(null);
    setEdit(next);
  };
  return (
    <section class="policy">
      <h2>
        Policy{' '}
        <button type="button" class="link" onClick={model.reload}>
          reload
        </button>
      </h2>
      <nav class="tabs">
        {TABS.map((t) => (
          <a key={t.tab} href={`#/policy?tab=${t.tab}`} class={t.tab === tab ? 'active' : ''}>
            {t.title}
          </a>
        ))}
      </nav>
      {edit ? (
        <ChangePreview
          key={JSON.stringify(edit)}
          api={ctx.api}
          edit={edit}
          onCancel={() => setEdit(null)}
          onApplied={(position) => {
            setApplied({ title: edit.title, position, readBefore: model.value });
            setEdit(null);
            setGeneration((g) => g + 1);
            model.reload();
          }}
        />
      ) : null}
      {applied && model.value !== applied.readBefore ? (
        <p class="policy-applied" data-testid="edit-applied">
          Applied: {applied.title}
          {applied.position !== null ? (
            <>
              {' '}
              at position <span data-testid="applied-position">{applied.position}</span> (<a href="#/timeline">timeline</a>)
            </>
          ) : null}
        </p>
      ) : null}
      <ErrorNote error={model.error} />
      {model.loading && !model.value ? <p class="muted">Loading the model…</p> : null}
      {model.value ? (
        <div class={edit ? 'policy-body pending' : 'policy-body'}>
          {model.value.truncated ? <p class="muted">The model is larger than the editor reads; some lists are cut short.</p> : null}
          <TabBody key={generation} tab={tab} model={model.value} paths={paths} propose={propose} params={params} />
        </div>
      ) : null}
    </section>
  );
}

function TabBody(props: { tab: string; model: PolicyModel; paths: PolicyPaths; propose: (e: Edit) => void; params: URLSearchParams }) {
  const { tab, model, paths, propose } = props;
  if (tab === 'roles') return <TopLevelRoles model={model} paths={paths} propose={propose} />;
  if (tab === 'sets') return <ConditionSetsEditor model={model} paths={paths} propose={propose} />;
  if (tab === 'rules') return <SetRulesEditor model={model} paths={paths} propose={propose} />;
  if (tab === 'users') return <UserAttributes attributes={model.userAttributes} paths={paths} propose={propose} />;
  return <ResourceTypes model={model} paths={paths} propose={propose} selected={props.params.get('type')} />;
}

function ResourceTypes(props: { model: PolicyModel; paths: PolicyPaths; propose: (e: Edit) => void; selected: string | null }) {
  const { model, paths, propose } = props;
  const resource = model.resources.find((r) => r.key === props.selected) ?? null;
  return (
    <div class="policy-types">
      <aside>
        <ul class="policy-type-list" data-testid="resource-types">
          {model.resources.map((r) => (
            <li key={r.key}>
              <a href={`#/policy?tab=resources&type=${encodeURIComponent(r.key)}`} class={r.key === resource?.key ? 'active' : ''}>
                {r.key}
              </a>
            </li>
          ))}
          <li>
            <a href="#/policy?tab=resources" class={resource ? '' : 'active'}>
              + new type
            </a>
          </li>
        </ul>
      </aside>
      <div>
        {resource ? (
          <ResourceEditor model={model} resource={resource} paths={paths} propose={propose} />
        ) : (
          <>
            <h3>New resource type</h3>
            <DefinitionForm initial={null} submit="Create…" onReview={(d) => propose(createResource(paths, d))} />
            <p class="muted">Roles, relations and derivations are added once the type exists (choose it on the left).</p>
          </>
        )}
      </div>
    </div>
  );
}

/** Top-level (tenant) roles: their matrix over every type's actions (`type:action`). */
function TopLevelRoles(props: { model: PolicyModel; paths: PolicyPaths; propose: (e: Edit) => void }) {
  const { model, paths, propose } = props;
  const columns = model.resources.flatMap((r) =>
    Object.keys(r.actions).map((a) => ({ permission: `${r.key}:${a}`, label: a, group: r.key })),
  );
  return (
    <>
      <RoleMatrix
        testId="top-level-matrix"
        roles={model.topLevelRoles}
        columns={columns}
        onReview={(grid) => {
          const edit = saveMatrix(paths, null, model.topLevelRoles, grid);
          if (edit) propose(edit);
        }}
        onDelete={(role) => propose(deleteRole(paths, null, role))}
      />
      <NewRoleForm roles={model.topLevelRoles.map((r) => r.key)} onReview={(role) => propose(createRole(paths, null, role))} />
    </>
  );
}

/** User attribute schemas (the built-in user type's attributes), which conditions on `user.*` are checked against. */
function UserAttributes(props: { attributes: AttributeDef[]; paths: PolicyPaths; propose: (e: Edit) => void }) {
  const { attributes, paths, propose } = props;
  const [key, setKey] = useState('');
  const [type, setType] = useState('string');
  return (
    <>
      <ListEditor
        testId="user-attributes"
        headers={['attribute', 'type']}
        items={attributes}
        empty="No user attributes declared: conditions on them are not type-checked."
        keyOf={(a) => a.key}
        rowAttributes={(a) => ({ 'data-attribute': a.key })}
        cells={(a) => (
          <>
            <td>
              <code>user.{a.key}</code>
            </td>
            <td>
              <select
                aria-label={`type of ${a.key}`}
                value={a.type}
                onChange={(e) => e.currentTarget.value !== a.type && propose(updateUserAttribute(paths, a, e.currentTarget.value))}
              >
                {ATTRIBUTE_TYPES.map((t) => (
                  <option key={t} value={t}>
                    {t}
                  </option>
                ))}
              </select>
            </td>
          </>
        )}
        actions={(a) => (
          <button
            type="button"
            class="link danger"
            name={`delete-user-attribute:${a.key}`}
            onClick={() => propose(deleteUserAttribute(paths, a))}
          >
            delete
          </button>
        )}
      />
      <form
        class="policy-form"
        data-testid="new-user-attribute-form"
        onSubmit={(e) => {
          e.preventDefault();
          propose(createUserAttribute(paths, { key: key.trim(), type }));
        }}
      >
        <TextInput label="attribute key" name="user-attribute-key" value={key} onChange={setKey} placeholder="department" />
        <FieldRow label="type" name="user-attribute-type" value={type} required choices={ATTRIBUTE_TYPES} onChange={setType} />
        <button type="submit" name="review-new-user-attribute">
          Add attribute…
        </button>
      </form>
    </>
  );
}
