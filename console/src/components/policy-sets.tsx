import { useState } from 'preact/hooks';
import type { ConditionSet, Edit, PolicyModel, PolicyPaths } from '../api/policy';
import {
  createConditionSet,
  createSetRule,
  deleteConditionSet,
  deleteSetRule,
  setRuleInputOf,
  updateConditionSet,
  type SetRuleInput,
} from '../api/policy-edits';
import { conditionsText } from '../model/policy-conditions';
import { ConditionEditor, conditionsOf, draftOf, type ConditionDraft } from './policy-conditions';
import { ErrorNote, Field, TextInput } from './widgets';

/** The attributes a set's conditions may name, for the builder to suggest. */
function attributeSuggestions(model: PolicyModel, resourceKey: string | null): string[] {
  const user = ['key', 'email', 'first_name', 'last_name', ...model.userAttributes.map((a) => a.key)].map((k) => `user.${k}`);
  const resource = model.resources.find((r) => r.key === resourceKey);
  const own = resource ? ['key', 'tenant', ...Object.keys(resource.attributes)].map((k) => `resource.${k}`) : [];
  return [...user, ...own, 'tenant.key'];
}

const resourceKeyOf = (model: PolicyModel, set: ConditionSet) => model.resources.find((r) => r.id === set.resource_id)?.key ?? null;

/** Condition sets (user sets and resource sets): listed with their conditions, created, changed and deleted. */
export function ConditionSetsEditor(props: { model: PolicyModel; paths: PolicyPaths; propose: (e: Edit) => void }) {
  const { model, paths, propose } = props;
  const [editing, setEditing] = useState<string | null>(null);
  return (
    <>
      <table class="data" data-testid="condition-sets">
        <thead>
          <tr>
            <th>set</th>
            <th>type</th>
            <th>conditions</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {model.conditionSets.map((set) => (
            <tr key={set.key} data-set={set.key}>
              <td>
                <code>{set.key}</code> {set.name !== set.key ? <span class="muted">{set.name}</span> : null}
              </td>
              <td>{set.type === 'userset' ? 'user set' : `resource set of ${resourceKeyOf(model, set) ?? set.resource_id ?? '?'}`}</td>
              <td>
                {editing === set.key ? (
                  <SetForm
                    model={model}
                    set={set}
                    onReview={(next) => {
                      const edit = updateConditionSet(paths, set, { name: next.name, conditions: next.conditions });
                      if (edit) propose(edit);
                    }}
                    onCancel={() => setEditing(null)}
                  />
                ) : (
                  <code>{conditionsText(set.conditions)}</code>
                )}
              </td>
              <td class="actions">
                <button
                  type="button"
                  class="link"
                  name={`edit-set:${set.key}`}
                  onClick={() => setEditing(editing === set.key ? null : set.key)}
                >
                  edit
                </button>{' '}
                <button type="button" class="link danger" onClick={() => propose(deleteConditionSet(paths, set))}>
                  delete
                </button>
              </td>
            </tr>
          ))}
          {model.conditionSets.length === 0 ? (
            <tr>
              <td colSpan={4} class="muted">
                No condition sets yet.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
      <h4>New condition set</h4>
      <SetForm model={model} set={null} onReview={(next) => propose(createConditionSet(paths, next))} />
    </>
  );
}

interface SetFormValue {
  key: string;
  name: string;
  type: 'userset' | 'resourceset';
  resource: string | null;
  conditions: unknown;
}

/** A condition set's form: key, type and resource type when creating; name and conditions always. */
function SetForm(props: { model: PolicyModel; set: ConditionSet | null; onReview: (v: SetFormValue) => void; onCancel?: () => void }) {
  const { model, set } = props;
  const [key, setKey] = useState(set?.key ?? '');
  const [name, setName] = useState(set?.name ?? '');
  const [type, setType] = useState<SetFormValue['type']>(set?.type ?? 'userset');
  const [resource, setResource] = useState<string>(set ? (resourceKeyOf(model, set) ?? '') : '');
  const [draft, setDraft] = useState<ConditionDraft>(() => draftOf(set?.conditions ?? {}));
  const [error, setError] = useState<Error | null>(null);
  return (
    <form
      class="policy-form"
      data-testid={set ? 'edit-set-form' : 'new-set-form'}
      onSubmit={(e) => {
        e.preventDefault();
        const parsed = conditionsOf(draft);
        if ('error' in parsed) {
          setError(new Error(parsed.error));
          return;
        }
        setError(null);
        props.onReview({
          key: key.trim(),
          name: name.trim() || key.trim(),
          type,
          resource: type === 'resourceset' ? resource : null,
          conditions: parsed.conditions,
        });
      }}
    >
      {set ? null : (
        <>
          <TextInput label="key" name="set-key" value={key} onChange={setKey} placeholder="legal" />
          <Field label="type">
            <select name="set-type" value={type} onChange={(e) => setType(e.currentTarget.value as SetFormValue['type'])}>
              <option value="userset">user set</option>
              <option value="resourceset">resource set</option>
            </select>
          </Field>
          {type === 'resourceset' ? (
            <Field label="resource type">
              <select name="set-resource" value={resource} onChange={(e) => setResource(e.currentTarget.value)}>
                <option value="">choose…</option>
                {model.resources.map((r) => (
                  <option key={r.key} value={r.key}>
                    {r.key}
                  </option>
                ))}
              </select>
            </Field>
          ) : null}
        </>
      )}
      <TextInput label="name" name="set-name" value={name} onChange={setName} />
      <ConditionEditor
        draft={draft}
        onChange={setDraft}
        prefix={type === 'userset' ? 'user.' : 'resource.'}
        attributes={attributeSuggestions(model, type === 'resourceset' ? resource || null : null)}
      />
      <button type="submit" name={set ? 'review-set' : 'review-new-set'}>
        {set ? 'Review changes' : 'Add condition set…'}
      </button>
      {props.onCancel ? (
        <button type="button" class="link" onClick={props.onCancel}>
          close
        </button>
      ) : null}
      <ErrorNote error={error} />
    </form>
  );
}

/** Set rules: a permission granted to a user set (or a top-level role) on a resource set (or a whole type). */
export function SetRulesEditor(props: { model: PolicyModel; paths: PolicyPaths; propose: (e: Edit) => void }) {
  const { model, paths, propose } = props;
  const blank: SetRuleInput = { user_set: '', permission: '', resource_set: '', is_role: false, is_resource: false };
  const [rule, setRule] = useState<SetRuleInput>(blank);
  const permissions = model.resources.flatMap((r) => Object.keys(r.actions).map((a) => `${r.key}:${a}`));
  const userSets = model.conditionSets.filter((s) => s.type === 'userset').map((s) => s.key);
  const resourceType = rule.permission.split(':')[0] ?? '';
  const resourceSets = model.conditionSets
    .filter((s) => s.type === 'resourceset' && resourceKeyOf(model, s) === resourceType)
    .map((s) => s.key);
  return (
    <>
      <table class="data" data-testid="set-rules">
        <thead>
          <tr>
            <th>user set</th>
            <th>may</th>
            <th>on resource set</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {model.setRules.map((r) => (
            <tr key={r.key}>
              <td>
                <code>{r.user_set}</code>
              </td>
              <td>
                <code>{r.permission}</code>
              </td>
              <td>
                <code>{r.resource_set}</code>
              </td>
              <td class="actions">
                <button
                  type="button"
                  class="link danger"
                  onClick={() => propose(deleteSetRule(paths, setRuleInputOf(r, model.conditionSets)))}
                >
                  delete
                </button>
              </td>
            </tr>
          ))}
          {model.setRules.length === 0 ? (
            <tr>
              <td colSpan={4} class="muted">
                No set rules yet.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
      <form
        class="policy-form"
        data-testid="new-set-rule-form"
        onSubmit={(e) => {
          e.preventDefault();
          propose(createSetRule(paths, rule));
        }}
      >
        <Field label={rule.is_role ? 'top-level role' : 'user set'}>
          <select name="rule-user-set" value={rule.user_set} onChange={(e) => setRule({ ...rule, user_set: e.currentTarget.value })}>
            <option value="">choose…</option>
            {(rule.is_role ? model.topLevelRoles.map((r) => r.key) : userSets).map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </Field>
        <label class="inline">
          <input
            type="checkbox"
            name="rule-is-role"
            checked={rule.is_role}
            onChange={(e) => setRule({ ...rule, is_role: e.currentTarget.checked, user_set: '' })}
          />
          a role
        </label>
        <Field label="permission">
          <select
            name="rule-permission"
            value={rule.permission}
            onChange={(e) => setRule({ ...rule, permission: e.currentTarget.value, resource_set: '' })}
          >
            <option value="">choose…</option>
            {permissions.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </Field>
        <Field label={rule.is_resource ? 'every instance of' : 'resource set'}>
          <select
            name="rule-resource-set"
            value={rule.resource_set}
            onChange={(e) => setRule({ ...rule, resource_set: e.currentTarget.value })}
          >
            <option value="">choose…</option>
            {(rule.is_resource ? (resourceType ? [resourceType] : []) : resourceSets).map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </Field>
        <label class="inline">
          <input
            type="checkbox"
            name="rule-is-resource"
            checked={rule.is_resource}
            onChange={(e) => setRule({ ...rule, is_resource: e.currentTarget.checked, resource_set: '' })}
          />
          the whole type
        </label>
        <button type="submit" name="review-new-set-rule" disabled={!rule.user_set || !rule.permission || !rule.resource_set}>
          Add set rule…
        </button>
      </form>
    </>
  );
}
