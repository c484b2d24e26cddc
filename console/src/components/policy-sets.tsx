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
import { FieldRow, ListEditor } from './policy-form';
import { ErrorNote, TextInput } from './widgets';

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
      <ListEditor
        testId="condition-sets"
        headers={['set', 'type', 'conditions']}
        items={model.conditionSets}
        empty="No condition sets yet."
        keyOf={(set) => set.key}
        rowAttributes={(set) => ({ 'data-set': set.key })}
        cells={(set) => (
          <>
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
          </>
        )}
        actions={(set) => (
          <>
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
          </>
        )}
      />
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
          <FieldRow
            label="type"
            name="set-type"
            value={type}
            required
            choices={[
              { value: 'userset', label: 'user set' },
              { value: 'resourceset', label: 'resource set' },
            ]}
            onChange={(next) => setType(next as SetFormValue['type'])}
          />
          {type === 'resourceset' ? (
            <FieldRow
              label="resource type"
              name="set-resource"
              value={resource}
              choices={model.resources.map((r) => r.key)}
              onChange={setResource}
            />
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
      <ListEditor
        testId="set-rules"
        headers={['user set', 'may', 'on resource set']}
        items={model.setRules}
        empty="No set rules yet."
        keyOf={(r) => r.key}
        cells={(r) => (
          <>
            <td>
              <code>{r.user_set}</code>
            </td>
            <td>
              <code>{r.permission}</code>
            </td>
            <td>
              <code>{r.resource_set}</code>
            </td>
          </>
        )}
        actions={(r) => (
          <button type="button" class="link danger" onClick={() => propose(deleteSetRule(paths, setRuleInputOf(r, model.conditionSets)))}>
            delete
          </button>
        )}
      />
      <form
        class="policy-form"
        data-testid="new-set-rule-form"
        onSubmit={(e) => {
          e.preventDefault();
          propose(createSetRule(paths, rule));
        }}
      >
        <FieldRow
          label={rule.is_role ? 'top-level role' : 'user set'}
          name="rule-user-set"
          value={rule.user_set}
          choices={rule.is_role ? model.topLevelRoles.map((r) => r.key) : userSets}
          onChange={(user_set) => setRule({ ...rule, user_set })}
        />
        <label class="inline">
          <input
            type="checkbox"
            name="rule-is-role"
            checked={rule.is_role}
            onChange={(e) => setRule({ ...rule, is_role: e.currentTarget.checked, user_set: '' })}
          />
          a role
        </label>
        <FieldRow
          label="permission"
          name="rule-permission"
          value={rule.permission}
          choices={permissions}
          onChange={(permission) => setRule({ ...rule, permission, resource_set: '' })}
        />
        <FieldRow
          label={rule.is_resource ? 'every instance of' : 'resource set'}
          name="rule-resource-set"
          value={rule.resource_set}
          choices={rule.is_resource ? (resourceType ? [resourceType] : []) : resourceSets}
          onChange={(resource_set) => setRule({ ...rule, resource_set })}
        />
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
