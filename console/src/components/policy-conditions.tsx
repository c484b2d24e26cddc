import { useState } from 'preact/hooks';
// The server's own list of operators: the one server module the console may import (browser-safe, .dependency-cruiser.cjs).
import { operators } from '../../../shared/domain/abac/conditions';
import { toConditions, toRows, type BuiltConditions, type ConditionRow } from '../model/policy-conditions';

/** What the builder holds: its rows, or raw JSON text (for conditions the rows cannot say, or by choice). */
export type ConditionDraft = { mode: 'rows'; built: BuiltConditions } | { mode: 'raw'; text: string };

export function draftOf(conditions: unknown): ConditionDraft {
  const built = toRows(conditions);
  return built ? { mode: 'rows', built } : { mode: 'raw', text: JSON.stringify(conditions, null, 2) };
}

/** The conditions a draft says, or an error naming why it says none (raw JSON that does not parse). */
export function conditionsOf(draft: ConditionDraft): { conditions: unknown } | { error: string } {
  if (draft.mode === 'rows') return { conditions: toConditions(draft.built) };
  try {
    return { conditions: JSON.parse(draft.text) as unknown };
  } catch (error) {
    return { error: `conditions are not JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}

const emptyRow = (prefix: string): ConditionRow => ({ attribute: prefix, operator: 'equals', value: '' });

/**
 * A condition builder: rows of attribute, operator, value joined by all/any,
 * or the raw JSON. `attributes` are suggested (`user.department`, …); any
 * attribute may be typed, and the API checks it against the schemas.
 */
export function ConditionEditor(props: {
  draft: ConditionDraft;
  onChange: (d: ConditionDraft) => void;
  attributes: string[];
  prefix: string;
}) {
  const { draft, onChange } = props;
  const [note, setNote] = useState<string | null>(null);
  const listId = `attributes-${props.prefix.replace(/\W/g, '')}`;
  if (draft.mode === 'raw') {
    const toBuilder = () => {
      const parsed = conditionsOf(draft);
      const built = 'conditions' in parsed ? toRows(parsed.conditions) : null;
      if (!built) {
        setNote('These conditions say more than rows of comparisons can (or are not JSON): edit them as JSON.');
        return;
      }
      setNote(null);
      onChange({ mode: 'rows', built });
    };
    return (
      <div class="condition-editor" data-testid="condition-editor">
        <textarea
          name="conditions-json"
          rows={8}
          cols={70}
          value={draft.text}
          onInput={(e) => onChange({ mode: 'raw', text: e.currentTarget.value })}
        />
        <div>
          <button type="button" class="link" onClick={toBuilder}>
            edit as rows
          </button>
          {note ? <span class="muted"> {note}</span> : null}
        </div>
      </div>
    );
  }
  const { built } = draft;
  const setRows = (rows: ConditionRow[]) => onChange({ mode: 'rows', built: { ...built, rows } });
  const setRow = (i: number, patch: Partial<ConditionRow>) => setRows(built.rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <div class="condition-editor" data-testid="condition-editor">
      <datalist id={listId}>
        {props.attributes.map((a) => (
          <option key={a} value={a} />
        ))}
      </datalist>
      <label class="inline">
        match
        <select
          name="combinator"
          value={built.combinator}
          onChange={(e) =>
            onChange({ mode: 'rows', built: { ...built, combinator: e.currentTarget.value as BuiltConditions['combinator'] } })
          }
        >
          <option value="allOf">all of</option>
          <option value="anyOf">any of</option>
        </select>
      </label>
      {built.rows.length === 0 ? <span class="muted">no conditions: everything matches</span> : null}
      {built.rows.map((row, i) => (
        <div class="condition-row" key={i} data-testid="condition-row">
          <input
            name="condition-attribute"
            list={listId}
            placeholder={`${props.prefix}attribute`}
            value={row.attribute}
            onInput={(e) => setRow(i, { attribute: e.currentTarget.value })}
          />
          <select name="condition-operator" value={row.operator} onChange={(e) => setRow(i, { operator: e.currentTarget.value })}>
            {operators.map((o) => (
              <option key={o} value={o}>
                {o}
              </option>
            ))}
          </select>
          <input
            name="condition-value"
            placeholder='value: legal, 5, true, ["a"]'
            value={row.value}
            onInput={(e) => setRow(i, { value: e.currentTarget.value })}
          />
          <button
            type="button"
            class="link danger"
            title="remove this condition"
            onClick={() => setRows(built.rows.filter((_, j) => j !== i))}
          >
            ✕
          </button>
        </div>
      ))}
      <div>
        <button type="button" class="link" name="add-condition" onClick={() => setRows([...built.rows, emptyRow(props.prefix)])}>
          + condition
        </button>{' '}
        <button
          type="button"
          class="link"
          name="edit-json"
          onClick={() => onChange({ mode: 'raw', text: JSON.stringify(toConditions(built), null, 2) })}
        >
          edit as JSON
        </button>
      </div>
    </div>
  );
}
