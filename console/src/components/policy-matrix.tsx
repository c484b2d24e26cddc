import { useEffect, useState } from 'preact/hooks';
import type { PolicyRole } from '../api/policy';
import type { RoleGrid } from '../api/policy-edits';

const gridOf = (roles: PolicyRole[]): RoleGrid[] =>
  roles.map((r) => ({ key: r.key, permissions: [...r.permissions], extends: [...(r.extends ?? [])] }));

const toggle = (list: string[], item: string, on: boolean) => (on ? [...new Set([...list, item])] : list.filter((x) => x !== item));

/**
 * Permit's role × action matrix: a row per role, a checkbox per permission
 * (an action of the type, or `type:action` for top-level roles), and the
 * roles it extends. Ticks stay local until *Review changes*, which hands the
 * grid to the page to propose as an edit.
 */
export function RoleMatrix(props: {
  roles: PolicyRole[];
  columns: Array<{ permission: string; label: string; group?: string }>;
  onReview: (grid: RoleGrid[]) => void;
  onDelete: (role: PolicyRole) => void;
  testId: string;
}) {
  const { roles, columns } = props;
  const [grid, setGrid] = useState<RoleGrid[]>(() => gridOf(roles));
  // A reload (after an edit) shows the roles as the API now has them.
  useEffect(() => setGrid(gridOf(roles)), [JSON.stringify(roles)]);
  const set = (key: string, patch: (row: RoleGrid) => RoleGrid) => setGrid(grid.map((row) => (row.key === key ? patch(row) : row)));
  const dirty = JSON.stringify(grid) !== JSON.stringify(gridOf(roles));
  const groups = [...new Set(columns.map((c) => c.group).filter((g): g is string => Boolean(g)))];
  if (roles.length === 0) return <p class="muted">No roles yet.</p>;
  return (
    <div class="policy-matrix-wrap">
      <table class="data policy-matrix" data-testid={props.testId}>
        <thead>
          {groups.length > 0 ? (
            <tr>
              <th />
              {groups.map((g) => (
                <th key={g} colSpan={columns.filter((c) => c.group === g).length} class="group">
                  {g}
                </th>
              ))}
              <th />
              <th />
            </tr>
          ) : null}
          <tr>
            <th>role</th>
            {columns.map((c) => (
              <th key={c.permission} title={c.permission}>
                {c.label}
              </th>
            ))}
            <th>extends</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {grid.map((row) => (
            <tr key={row.key} data-role={row.key}>
              <td>
                <strong>{row.key}</strong>
              </td>
              {columns.map((c) => (
                <td key={c.permission} class="tick">
                  <input
                    type="checkbox"
                    name={`perm:${row.key}:${c.permission}`}
                    aria-label={`${row.key} may ${c.permission}`}
                    checked={row.permissions.includes(c.permission)}
                    onChange={(e) => {
                      const on = e.currentTarget.checked;
                      set(row.key, (r) => ({ ...r, permissions: toggle(r.permissions, c.permission, on) }));
                    }}
                  />
                </td>
              ))}
              <td class="extends">
                {grid
                  .filter((other) => other.key !== row.key)
                  .map((other) => (
                    <label key={other.key} class="inline">
                      <input
                        type="checkbox"
                        name={`extends:${row.key}:${other.key}`}
                        checked={row.extends.includes(other.key)}
                        onChange={(e) => {
                          const on = e.currentTarget.checked;
                          set(row.key, (r) => ({ ...r, extends: toggle(r.extends, other.key, on) }));
                        }}
                      />
                      {other.key}
                    </label>
                  ))}
              </td>
              <td>
                <button
                  type="button"
                  class="link danger"
                  name={`delete-role:${row.key}`}
                  onClick={() => props.onDelete(roles.find((r) => r.key === row.key)!)}
                >
                  delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div class="policy-buttons">
        <button type="button" name="review-matrix" disabled={!dirty} onClick={() => props.onReview(grid)}>
          Review changes
        </button>
        <button type="button" class="link" disabled={!dirty} onClick={() => setGrid(gridOf(roles))}>
          undo ticks
        </button>
      </div>
    </div>
  );
}
