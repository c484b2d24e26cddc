import { DomainError } from '../../errors';
import type { EnvEvent } from '../../events';
import type { BulkItemCommand, EnvCommand } from './commands';
import * as directory from './directory-decisions';
import * as facts from './facts-decisions';
import { scratchOf } from './scratch';
import { evolveEnv } from './fold';
import type { EnvState } from './state';

type Cmd<T extends EnvCommand['type']> = Extract<EnvCommand, { type: T }>;

function decideItem(command: BulkItemCommand, state: EnvState): EnvEvent[] {
  switch (command.type) {
    case 'CreateInstance':
      return facts.createInstance(command, state);
    case 'DeleteInstance':
      return facts.deleteInstance(command, state);
    case 'AssignRole':
      return facts.assignRole(command, state);
    case 'UnassignRole':
      return facts.unassignRole(command, state);
    case 'CreateTuple':
      return facts.createTuple(command, state);
    case 'DeleteTuple':
      return facts.deleteTuple(command, state);
    case 'CreateUser':
      return directory.createUser(command, state);
    case 'ReplaceUser':
      return directory.replaceUser(command, state);
    case 'DeleteUser':
      return directory.deleteUser(command, state);
    case 'CreateTenant':
      return facts.createTenant(command, state);
    case 'DeleteTenant':
      return facts.deleteTenant(command, state);
  }
}

/**
 * All or nothing: each item is decided against the state the items before it
 * leave (so a bulk may create a user with its first assignment and assign it
 * again, and a duplicate inside the bulk is refused), on a scratch copy that
 * leaves `state` untouched. The first refused item refuses the whole bulk with
 * its own error type, its message prefixed with the item's index.
 */
export function bulk(c: Cmd<'Bulk'>, s: EnvState): EnvEvent[] {
  const scratch = scratchOf(s);
  const out: EnvEvent[] = [];
  c.commands.forEach((item, index) => {
    let events: EnvEvent[];
    try {
      events = decideItem(item, scratch);
    } catch (error) {
      throw error instanceof DomainError ? atIndex(error, index) : error;
    }
    for (const event of events) {
      evolveEnv(scratch, event);
      out.push(event);
    }
  });
  return out;
}

/** The same kind of error (so it maps to the same status), naming the item. */
function atIndex(error: DomainError, index: number): DomainError {
  // Every DomainError the facts decisions throw has the (message, additionalInfo) constructor.
  const Kind = error.constructor as new (message: string, additionalInfo?: Record<string, unknown>) => DomainError;
  return new Kind(`Item ${index}: ${error.message}`, { ...error.additionalInfo, index });
}
