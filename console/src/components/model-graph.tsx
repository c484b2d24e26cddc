import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { focusClass, focusOf, rowId, sameRule, type Focus, type Rule } from '../model/focus';
import { fitView, layoutModel, ROW, type Layout, type ModelType, type Rect } from '../model/layout';

/** Below this the fitted graph would be unreadable: it keeps this height and the page scrolls instead. */
const MIN_ROOM_HEIGHT = 240;
/** Kept free under the graph so that its frame does not touch the window's edge. */
const BOTTOM_GAP = 16;

interface View {
  box: Rect;
  scale: number;
}

/**
 * The model as a graph (`layoutModel`), fitted to the window on load and on
 * resize: the view box is what was drawn (measured, so labels and curves
 * past the boxes count), scaled down until it fits under the graph's top,
 * never up. "actual size" draws it at 1:1 in a scrolling frame instead.
 *
 * Clicking a rule (a derivation edge, a relation edge, a role's `⊇ extends`)
 * lights the boxes, rows and edges it touches and dims the rest; clicking it
 * again, the background, or Escape shows everything again.
 */
export function ModelGraph({ types }: { types: ModelType[] }) {
  const layout = useMemo(() => layoutModel(types), [types]);
  const frame = useRef<HTMLDivElement>(null);
  const drawing = useRef<SVGGElement>(null);
  const [fit, setFit] = useState(true);
  const [view, setView] = useState<View | null>(null);
  const [rule, setRule] = useState<Rule | null>(null);
  const focus = rule ? focusOf(rule, layout, types) : null;

  useEffect(() => setRule(null), [layout]);
  useLayoutEffect(() => {
    const measure = () => {
      const g = drawing.current;
      const el = frame.current;
      if (!g || !el) return;
      const drawn = g.getBBox();
      const top = el.getBoundingClientRect().top + window.scrollY + (el.offsetHeight - el.clientHeight);
      const room = fit
        ? { width: el.clientWidth, height: Math.max(MIN_ROOM_HEIGHT, window.innerHeight - top - BOTTOM_GAP) }
        : { width: Number.POSITIVE_INFINITY, height: Number.POSITIVE_INFINITY };
      const next = fitView({ x: drawn.x, y: drawn.y, width: drawn.width, height: drawn.height }, room);
      setView((prev) => (prev && JSON.stringify(prev) === JSON.stringify(next) ? prev : next));
    };
    measure();
    const observer = new ResizeObserver(measure);
    if (frame.current) observer.observe(frame.current);
    window.addEventListener('resize', measure);
    return () => {
      observer.disconnect();
      window.removeEventListener('resize', measure);
    };
  }, [layout, fit]);

  const pick = (next: Rule) => (event: Event) => {
    event.stopPropagation();
    setRule((current) => (sameRule(current, next) ? null : next));
  };
  /** A rule's handle: clicked, or Enter/Space when focused with the keyboard. */
  const handle = (next: Rule, label: string) => ({
    tabIndex: 0,
    role: 'button',
    'aria-label': label,
    'aria-pressed': sameRule(rule, next),
    onClick: pick(next),
    onKeyDown: (e: KeyboardEvent) => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        pick(next)(e);
      }
    },
  });

  const box = view?.box ?? { x: 0, y: 0, width: layout.width, height: layout.height };
  const scale = view?.scale ?? 1;
  return (
    <>
      <div class="graph-bar">
        <span class="graph-focus" data-testid="graph-focus">
          {focus ? (
            <>
              Showing one rule: <strong>{focus.text}</strong>{' '}
              <button type="button" class="link" name="show-all-rules" onClick={() => setRule(null)}>
                show all
              </button>
            </>
          ) : (
            <span class="muted">Click a relation, a derivation or a role’s ⊇ extends to show that rule alone.</span>
          )}
        </span>
        <button type="button" class="link" name="graph-size" onClick={() => setFit(!fit)}>
          {fit ? 'actual size' : 'fit to page'}
        </button>
      </div>
      <div class={`graph-frame${fit ? ' fit' : ''}`} ref={frame}>
        <svg
          class={`model-graph${focus ? ' isolating' : ''}`}
          data-testid="model-graph"
          data-scale={view ? scale.toFixed(3) : undefined}
          width={box.width * scale}
          height={box.height * scale}
          viewBox={`${box.x} ${box.y} ${box.width} ${box.height}`}
          role="group"
          aria-label="Resource types, roles, relations and derivation rules"
          tabIndex={-1}
          onClick={() => setRule(null)}
          onKeyDown={(e) => e.key === 'Escape' && setRule(null)}
        >
          <defs>
            <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
              <path d="M 0 0 L 10 5 L 0 10 z" class="arrowhead" />
            </marker>
            <marker id="arrow-derive" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
              <path d="M 0 0 L 10 5 L 0 10 z" class="arrowhead derive" />
            </marker>
          </defs>
          <g ref={drawing}>
            <Drawing layout={layout} types={types} focus={focus} handle={handle} />
          </g>
        </svg>
      </div>
    </>
  );
}

type Handle = (rule: Rule, label: string) => Record<string, unknown>;

function Drawing({ layout, types, focus, handle }: { layout: Layout; types: ModelType[]; focus: Focus | null; handle: Handle }) {
  const byKey = new Map(types.map((t) => [t.key, t]));
  const rowLit = (type: string, role: string) =>
    !focus || (focus.boxes.has(type) && (focus.rows === null || focus.rows.has(rowId(type, role))));
  return (
    <>
      {layout.relations.map((e, i) => (
        <g
          key={`${e.from}-${e.key}-${e.to}`}
          class={`relation-edge${focusClass(focus, !!focus?.relations.has(i))}`}
          data-relation={e.key}
          {...handle({ kind: 'relation', index: i }, `relation ${e.from} —${e.key}→ ${e.to}`)}
        >
          <path d={e.path} marker-end="url(#arrow)" />
          <path class="hit" d={e.path} />
          <text x={e.label.x} y={e.label.y}>
            {e.key}
          </text>
        </g>
      ))}
      {layout.boxes.map((box) => {
        const type = byKey.get(box.type)!;
        return (
          <g
            key={box.type}
            class={`type-box${focusClass(focus, !!focus?.boxes.has(box.type))}`}
            data-type={box.type}
            transform={`translate(${box.x},${box.y})`}
          >
            <rect width={box.width} height={box.height} rx="8" />
            <text class="type-title" x="12" y="20">
              {type.key}
            </text>
            <text class="type-actions" x="12" y="36">
              {type.actions.length ? `actions: ${type.actions.join(', ')}` : 'no actions'}
            </text>
            {type.roles.map((role, i) => (
              <g
                key={role.key}
                class={`role-row${focus?.boxes.has(box.type) ? focusClass(focus, rowLit(box.type, role.key)) : ''}`}
                data-role={rowId(type.key, role.key)}
              >
                <rect class="row-mark" x="4" y={44 + i * ROW} width={box.width - 8} height={ROW} rx="4" />
                <text x="12" y={44 + i * ROW + ROW / 2 + 4}>
                  <tspan class="role-key">{role.key}</tspan>
                  <tspan class="role-perms"> {role.permissions.join(', ') || '—'}</tspan>
                  {role.extends.length ? (
                    <tspan
                      class="role-extends"
                      {...handle(
                        { kind: 'extends', type: type.key, role: role.key },
                        `${type.key}#${role.key} extends ${role.extends.join(', ')}`,
                      )}
                    >
                      {' '}
                      ⊇ {role.extends.join(', ')}
                    </tspan>
                  ) : null}
                </text>
              </g>
            ))}
            {type.roles.length === 0 ? (
              <text class="muted" x="12" y={44 + ROW / 2 + 4}>
                no roles
              </text>
            ) : null}
          </g>
        );
      })}
      {layout.derivations.map((d, i) => (
        <g
          key={i}
          class={`derivation-edge${d.dangling ? ' dangling' : ''}${focusClass(focus, !!focus?.derivations.has(i))}`}
          data-derivation={`${d.from.type}#${d.from.role}>${d.to.type}#${d.to.role}`}
          {...handle(
            { kind: 'derivation', index: i },
            `derivation ${d.from.type}#${d.from.role} ⇒ ${d.to.type}#${d.to.role} via ${d.relation}`,
          )}
        >
          <path d={d.path} marker-end="url(#arrow-derive)" />
          <path class="hit" d={d.path} />
          <title>{`${d.from.type}#${d.from.role} ⇒ ${d.to.type}#${d.to.role} via ${d.relation}`}</title>
        </g>
      ))}
    </>
  );
}
