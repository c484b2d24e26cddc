import { isDeepStrictEqual } from 'node:util';
import { NotFoundError } from '../../errors';
import type { EnvEvent } from '../../events';
import type { EnvCommand } from './commands';
import type { EnvState } from './state';

type Cmd<T extends EnvCommand['type']> = Extract<EnvCommand, { type: T }>;

/**
 * Saved assertions (docs/assertions.md): a check and the answer it is expected to
 * get. They take no part in any decision, so nothing about the schema is checked
 * here (an assertion may name a user or type that does not exist yet: it then
 * expects what such a check answers). An assertion saved unchanged writes nothing.
 */
export function saveAssertions(c: Cmd<'SaveAssertions'>, s: EnvState): EnvEvent[] {
  if (c.mustExist) {
    const missing = c.assertions.find((a) => !s.assertions.has(a.id));
    if (missing) throw new NotFoundError(`Assertion '${missing.id}' not found`, { assertion: missing.id });
  }
  const kept = new Set(c.assertions.map((a) => a.id));
  const deleted: EnvEvent[] = c.replaceAll
    ? [...s.assertions.keys()].filter((id) => !kept.has(id)).map((id) => ({ type: 'AssertionDeleted', data: { id } }))
    : [];
  const saved: EnvEvent[] = c.assertions
    .filter((a) => !isDeepStrictEqual(s.assertions.get(a.id), a))
    .map((a) => ({ type: 'AssertionSaved', data: a }));
  return [...deleted, ...saved];
}

export function deleteAssertion(c: Cmd<'DeleteAssertion'>, s: EnvState): EnvEvent[] {
  if (!s.assertions.has(c.id)) throw new NotFoundError(`Assertion '${c.id}' not found`, { assertion: c.id });
  return [{ type: 'AssertionDeleted', data: { id: c.id } }];
}
