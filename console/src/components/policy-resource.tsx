import { useEffect, useState } from 'preact/hooks';
import type { AttributeDef, Edit, PolicyModel, PolicyPaths, PolicyResource } from '../api/policy';
import {
  addDerivation,
  createRelation,
  createRole,
  deleteRelation,
  deleteResource,
  deleteRole,
  definitionOf,
  derivationText,
  removeDerivation,
  replaceResource,
  saveMatrix,
  type ResourceDefinition,
} from '../api/policy-edits';
import { RoleMatrix } from './policy-matrix';
import { FieldRow } from './policy-form';
import { TextInput } from './widgets';

/** Attribute types the API takes (shared/events `attributeTypes`). */
export const ATTRIBUTE_TYPES = ['bool', 'number', 'string', 'time', 'array', 'json', 'object', 'object_array'];

/** `read, write` → `['read', 'write']`. */
export const listOf = (text: string): string[] =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** `department:string, level:number` → attribute definitions (a missing type is sent as typed, for the API to refuse). */
export const attributesOf = (text: string): AttributeDef[] =>
  listOf(text).map((item) => {
    const [key = '', type = ''] = item.split(':').map((s) => s.trim());
    return { key, type };
  });

export const attributesText = (attributes: AttributeDef[]) => attributes.map((a) => `${a.key}:${a.type}`).join(', ');

/** The definition form: key (creation only), name, actions, attributes. */
export function DefinitionForm(props: { initial: ResourceDefinition | null; onReview: (d: ResourceDefinition) => void; submit: string }) {
  const blank = { key: '', name: '', actions: '', attributes: '' };
  const fromInitial = (d: ResourceDefinition | null) =>
    d ? { key: d.key, name: d.name, actions: d.actions.join(', '), attributes: attributesText(d.attributes) } : blank;
  const [form, setForm] = useState(() => fromInitial(props.initial));
  useEffect(() => setForm(fromInitial(props.initial)), [JSON.stringify(props.initial)]);
  const creating = props.initial === null;
  return (
    <form
      class="policy-form"
      data-testid={creating ? 'new-resource-form' : 'resource-definition-form'}
      onSubmit={(e) => {
        e.preventDefault();
        props.onReview({
          key: form.key.trim(),
          name: form.name.trim(),
          actions: listOf(form.actions),
          attributes: attributesOf(form.attributes),
        });
      }}
    >
      {creating ? <TextInput label="key" name="resource-key" value={form.key} onChange={(key) => setForm({ ...form, key })} /> : null}
      <TextInput label="name" name="resource-name" value={form.name} onChange={(name) => setForm({ ...form, name })} />
      <TextInput
        label="actions (comma-separated)"
        name="resource-actions"
        placeholder="read, write, share"
        value={form.actions}
        onChange={(actions) => setForm({ ...form, actions })}
      />
      <TextInput
        label={`attributes (key:type; ${ATTRIBUTE_TYPES.join(', ')})`}
        name="resource-attributes"
        placeholder="owner:string, pages:number"
        value={form.attributes}
        onChange={(attributes) => setForm({ ...form, attributes })}
      />
      <button type="submit" name={creating ? 'review-new-resource' : 'review-resource'}>
        {props.submit}
      </button>
    </form>
  );
}

/** One resource type: its definition, the role × action matrix, new roles, relations and derivations. */
export function ResourceEditor(props: { model: PolicyModel; resource: PolicyResource; paths: PolicyPaths; propose: (e: Edit) => void }) {
  const { resource, paths, propose, model } = props;
  return (
    <div class="policy-resource" data-testid="resource-editor" data-resource={resource.key}>
      <h3>
        {resource.key}{' '}
        <button type="button" class="link danger" name="delete-resource" onClick={() => propose(deleteResource(paths, resource))}>
          delete type
        </button>
      </h3>
      <DefinitionForm
        initial={definitionOf(resource)}
        submit="Review changes"
        onReview={(d) => propose(replaceResource(paths, resource, d))}
      />
      <h4>Roles × actions</h4>
      <RoleMatrix
        testId="role-matrix"
        roles={resource.roles}
        columns={Object.keys(resource.actions).map((a) => ({ permission: a, label: a }))}
        onReview={(grid) => {
          const edit = saveMatrix(paths, resource.key, resource.roles, grid);
          if (edit) propose(edit);
        }}
        onDelete={(role) => propose(deleteRole(paths, resource.key, role))}
      />
      <NewRoleForm roles={resource.roles.map((r) => r.key)} onReview={(role) => propose(createRole(paths, resource.key, role))} />
      <h4>Relations (subject → {resource.key})</h4>
      <RelationsEditor {...props} />
      <h4>Derivations (granted to)</h4>
      <DerivationsEditor model={model} resource={resource} paths={paths} propose={propose} />
    </div>
  );
}

export function NewRoleForm(props: {
  roles: string[];
  onReview: (role: { key: string; name: string; permissions: string[]; extends: string[] }) => void;
}) {
  const [key, setKey] = useState('');
  const [ext, setExt] = useState('');
  return (
    <form
      class="policy-form"
      data-testid="new-role-form"
      onSubmit={(e) => {
        e.preventDefault();
        props.onReview({ key: key.trim(), name: key.trim(), permissions: [], extends: listOf(ext) });
      }}
    >
      <TextInput label="new role key" name="role-key" value={key} onChange={setKey} placeholder="viewer" />
      <TextInput label="extends (comma-separated)" name="role-extends" value={ext} onChange={setExt} placeholder={props.roles.join(', ')} />
      <button type="submit" name="review-new-role">
        Add role…
      </button>
    </form>
  );
}

function RelationsEditor(props: { model: PolicyModel; resource: PolicyResource; paths: PolicyPaths; propose: (e: Edit) => void }) {
  const { resource, paths, propose, model } = props;
  const [key, setKey] = useState('');
  const [subject, setSubject] = useState('');
  return (
    <>
      <ul data-testid="relations">
        {resource.relations.map((rel) => (
          <li key={rel.key}>
            <code>{rel.subject_resource}</code> —{rel.key}→ <code>{resource.key}</code>{' '}
            <button type="button" class="link danger" onClick={() => propose(deleteRelation(paths, resource.key, rel))}>
              delete
            </button>
          </li>
        ))}
        {resource.relations.length === 0 ? <li class="muted">none</li> : null}
      </ul>
      <form
        class="policy-form"
        data-testid="new-relation-form"
        onSubmit={(e) => {
          e.preventDefault();
          propose(createRelation(paths, resource.key, { key: key.trim(), subject }));
        }}
      >
        <TextInput label="relation key" name="relation-key" value={key} onChange={setKey} placeholder="parent" />
        <FieldRow
          label="subject type"
          name="relation-subject"
          value={subject}
          choices={model.resources.map((r) => r.key)}
          onChange={setSubject}
        />
        <button type="submit" name="review-new-relation">
          Add relation…
        </button>
      </form>
    </>
  );
}

/**
 * Role derivations of this type's roles: "role R here is granted to users with
 * role S on a T linked by relation rel" (T —rel→ this type), with Permit's one
 * condition, `no_direct_roles_on_object` (only when the user holds no role
 * directly on the object).
 */
function DerivationsEditor(props: { model: PolicyModel; resource: PolicyResource; paths: PolicyPaths; propose: (e: Edit) => void }) {
  const { resource, paths, propose, model } = props;
  const [role, setRole] = useState('');
  const [link, setLink] = useState('');
  const [from, setFrom] = useState('');
  const [noDirect, setNoDirect] = useState(false);
  const relation = resource.relations.find((r) => r.key === link);
  const subjectRoles = model.resources.find((r) => r.key === relation?.subject_resource)?.roles ?? [];
  const rules = resource.roles.flatMap((r) => (r.granted_to?.users_with_role ?? []).map((d) => ({ role: r, rule: d })));
  return (
    <>
      <ul data-testid="derivations">
        {rules.map(({ role: r, rule }) => (
          <li key={`${r.key}<${derivationText(rule)}`}>
            <strong>{r.key}</strong> is granted to <code>{rule.role}</code> on <code>{rule.on_resource}</code> via{' '}
            <code>{rule.linked_by_relation}</code>
            {r.granted_to?.when?.no_direct_roles_on_object ? <em> when the user has no direct role on the {resource.key}</em> : null}{' '}
            <button type="button" class="link danger" onClick={() => propose(removeDerivation(paths, resource.key, r, rule))}>
              remove
            </button>
          </li>
        ))}
        {rules.length === 0 ? <li class="muted">none</li> : null}
      </ul>
      {resource.relations.length === 0 ? (
        <p class="muted">A derivation follows a relation to this type: add one first.</p>
      ) : (
        <form
          class="policy-form"
          data-testid="new-derivation-form"
          onSubmit={(e) => {
            e.preventDefault();
            const target = resource.roles.find((r) => r.key === role);
            if (!target || !relation) return;
            propose(
              addDerivation(
                paths,
                resource.key,
                target,
                { role: from, on_resource: relation.subject_resource, linked_by_relation: link },
                noDirect,
              ),
            );
          }}
        >
          <FieldRow label="role here" name="derivation-role" value={role} choices={resource.roles.map((r) => r.key)} onChange={setRole} />
          <FieldRow
            label="via relation"
            name="derivation-relation"
            value={link}
            choices={resource.relations.map((r) => ({ value: r.key, label: `${r.subject_resource} —${r.key}→` }))}
            onChange={setLink}
          />
          <FieldRow
            label={`granted to holders of (on ${relation?.subject_resource ?? 'the subject'})`}
            name="derivation-from"
            value={from}
            choices={subjectRoles.map((r) => r.key)}
            onChange={setFrom}
          />
          <label class="inline">
            <input type="checkbox" name="derivation-no-direct" checked={noDirect} onChange={(e) => setNoDirect(e.currentTarget.checked)} />
            only when the user has no role directly on the {resource.key}
          </label>
          <button type="submit" name="review-new-derivation" disabled={!role || !link || !from}>
            Add derivation…
          </button>
        </form>
      )}
    </>
  );
}
