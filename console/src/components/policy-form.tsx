import type { ComponentChildren } from 'preact';
import { Field } from './widgets';

/** A choice's value, and what the list shows for it when that is not the value itself. */
export type Choice = string | { value: string; label: string };

/**
 * A labelled pick from a list, the policy editor's one form row for a type,
 * a role, a relation or a set: a blank "choose…" first unless `required`
 * (a list that always has an answer, as a set's type).
 */
export function FieldRow(props: {
  label: string;
  name: string;
  value: string;
  choices: Choice[];
  onChange: (value: string) => void;
  required?: boolean;
}) {
  return (
    <Field label={props.label}>
      <select name={props.name} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        {props.required ? null : <option value="">choose…</option>}
        {props.choices.map((c) => {
          const { value, label } = typeof c === 'string' ? { value: c, label: c } : c;
          return (
            <option key={value} value={value}>
              {label}
            </option>
          );
        })}
      </select>
    </Field>
  );
}

/**
 * What the policy editor lists (condition sets, set rules, user attributes):
 * one row per item, its own cells then its actions (delete, edit), and a
 * line saying the list is empty.
 */
export function ListEditor<T>(props: {
  testId: string;
  headers: string[];
  items: T[];
  empty: string;
  keyOf: (item: T) => string;
  /** Attributes of the item's row (`data-…`, for tests and styles). */
  rowAttributes?: (item: T) => Record<string, string>;
  cells: (item: T) => ComponentChildren;
  actions: (item: T) => ComponentChildren;
}) {
  return (
    <table class="data" data-testid={props.testId}>
      <thead>
        <tr>
          {props.headers.map((h) => (
            <th key={h}>{h}</th>
          ))}
          <th />
        </tr>
      </thead>
      <tbody>
        {props.items.map((item) => (
          <tr key={props.keyOf(item)} {...props.rowAttributes?.(item)}>
            {props.cells(item)}
            <td class="actions">{props.actions(item)}</td>
          </tr>
        ))}
        {props.items.length === 0 ? (
          <tr>
            <td colSpan={props.headers.length + 1} class="muted">
              {props.empty}
            </td>
          </tr>
        ) : null}
      </tbody>
    </table>
  );
}
