import { useState } from 'preact/hooks';
import { resourceText, type Assertion, type AssertionInput, type Expected } from '../api/assertions';
import { ErrorNote, Field, TextInput } from './widgets';

/** A JSON object typed in (empty: none); anything else is refused by name rather than dropped. */
function jsonObject(label: string, text: string): Record<string, unknown> | undefined {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${label}: not JSON`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${label}: a JSON object is expected`);
  return value as Record<string, unknown>;
}

const jsonText = (value: Record<string, unknown> | null | undefined): string => (value ? JSON.stringify(value) : '');

/**
 * Adds or changes one assertion: the check's members as the Check page takes
 * them (`type:key` resource, tenant), the expected answer, and optionally the
 * attributes and context a set rule reads. Every field typed is sent.
 */
export function AssertionForm(props: {
  initial?: Assertion;
  submitLabel: string;
  onSubmit: (input: AssertionInput) => Promise<void>;
  onCancel?: () => void;
}) {
  const a = props.initial;
  const [name, setName] = useState(a?.name ?? '');
  const [user, setUser] = useState(a?.user.key ?? '');
  const [action, setAction] = useState(a?.action ?? '');
  const [resource, setResource] = useState(a ? resourceText(a.resource) : '');
  const [tenant, setTenant] = useState(a?.resource.tenant ?? '');
  const [expected, setExpected] = useState<Expected>(a?.expected ?? 'allow');
  const [userAttributes, setUserAttributes] = useState(jsonText(a?.user.attributes));
  const [resourceAttributes, setResourceAttributes] = useState(jsonText(a?.resource.attributes));
  const [context, setContext] = useState(jsonText(a?.context));
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const colon = resource.indexOf(':');
      const type = (colon < 0 ? resource : resource.slice(0, colon)).trim();
      const key = colon < 0 ? '' : resource.slice(colon + 1).trim();
      const ua = jsonObject('user attributes', userAttributes);
      const ra = jsonObject('resource attributes', resourceAttributes);
      const ctx = jsonObject('context', context);
      const input: AssertionInput = {
        // null clears a name on a change; a new assertion simply has none.
        name: name.trim() || (a ? null : undefined),
        user: { key: user.trim(), ...(ua ? { attributes: ua } : {}) },
        action: action.trim(),
        resource: { type, ...(key ? { key } : {}), ...(tenant.trim() ? { tenant: tenant.trim() } : {}), ...(ra ? { attributes: ra } : {}) },
        context: ctx ?? (a ? null : undefined),
        expected,
      };
      await props.onSubmit(input);
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="assertion-form card" data-testid="assertion-form" onSubmit={(e) => void submit(e)}>
      <div class="filters">
        <TextInput label="name" name="assertion-name" value={name} onChange={setName} placeholder="(optional)" />
        <TextInput label="user" name="assertion-user" value={user} onChange={setUser} placeholder="alice" />
        <TextInput label="action" name="assertion-action" value={action} onChange={setAction} placeholder="read" />
        <TextInput label="resource" name="assertion-resource" value={resource} onChange={setResource} placeholder="file:roadmap" />
        <TextInput label="tenant" name="assertion-tenant" value={tenant} onChange={setTenant} placeholder="(any)" />
        <Field label="expected">
          <select name="assertion-expected" value={expected} onChange={(e) => setExpected(e.currentTarget.value as Expected)}>
            <option value="allow">allow</option>
            <option value="deny">deny</option>
          </select>
        </Field>
      </div>
      <details open={Boolean(userAttributes || resourceAttributes || context)}>
        <summary class="muted">attributes and context (for set rules)</summary>
        <div class="filters">
          <TextInput label="user attributes (JSON)" name="assertion-user-attributes" value={userAttributes} onChange={setUserAttributes} />
          <TextInput
            label="resource attributes (JSON)"
            name="assertion-resource-attributes"
            value={resourceAttributes}
            onChange={setResourceAttributes}
          />
          <TextInput label="context (JSON)" name="assertion-context" value={context} onChange={setContext} />
        </div>
      </details>
      <button type="submit" name="assertion-submit" disabled={busy || !user.trim() || !action.trim() || !resource.trim()}>
        {props.submitLabel}
      </button>
      {props.onCancel ? (
        <button type="button" class="link" onClick={props.onCancel}>
          cancel
        </button>
      ) : null}
      <ErrorNote error={error} />
    </form>
  );
}
