import type { DerivationRule } from '../../events';

/** A reference to an object by key or by id (every path id accepts either). */
export type Ref = string;

export interface ActionInput {
  id: string;
  key: string;
  name: string;
  description: string;
}

/** Commands on an environment stream. Ids of new objects and the clock arrive from outside (DESIGN §3). */
export type EnvCommand =
  | {
      type: 'CreateResource';
      id: string;
      key: string;
      name: string;
      description: string;
      actions: ActionInput[];
      attributes: Record<string, unknown>;
    }
  | { type: 'DeleteResource'; resource: Ref }
  | {
      type: 'CreateRole';
      id: string;
      /** null: a top-level (tenant) role whose permissions are `resource:action`. */
      resource: Ref | null;
      key: string;
      name: string;
      description: string;
      permissions: string[];
      attributes: Record<string, unknown>;
      grantedTo?: DerivationRule[];
    }
  | {
      type: 'UpdateRole';
      resource: Ref | null;
      role: Ref;
      name?: string;
      description?: string;
      permissions?: string[];
      grantedTo?: DerivationRule[];
    }
  | { type: 'DeleteRole'; resource: Ref | null; role: Ref }
  | { type: 'AddImplicitGrant'; resource: Ref; role: Ref; rule: DerivationRule }
  | { type: 'RemoveImplicitGrant'; resource: Ref; role: Ref; rule: DerivationRule }
  | { type: 'CreateRelation'; id: string; objectResource: Ref; key: string; name: string; description: string; subjectResource: Ref }
  | { type: 'DeleteRelation'; objectResource: Ref; relation: Ref }
  | { type: 'CreateTenant'; id: string; key: string; name: string; description: string; attributes: Record<string, unknown> }
  | { type: 'DeleteTenant'; tenant: Ref }
  | {
      type: 'CreateUser';
      id: string;
      key: string;
      email: string | null;
      firstName: string | null;
      lastName: string | null;
      attributes: Record<string, unknown>;
    }
  | { type: 'CreateInstance'; id: string; key: string; resource: Ref; tenant: Ref; attributes: Record<string, unknown> }
  | { type: 'DeleteInstance'; instance: Ref }
  | {
      type: 'AssignRole';
      id: string;
      /** Id for the user if this assignment creates it. */
      newUserId: string;
      user: string;
      role: string;
      tenant: string | null;
      resourceInstance: string | null;
    }
  | { type: 'UnassignRole'; user: string; role: string; tenant: string | null; resourceInstance: string | null }
  | { type: 'CreateTuple'; id: string; subject: string; relation: string; object: string; tenant: string | null }
  | { type: 'DeleteTuple'; subject: string; relation: string; object: string }
  | {
      type: 'CreateConditionSet';
      id: string;
      key: string;
      setType: 'userset' | 'resourceset';
      resource: Ref | null;
      name: string;
      description: string;
      parent: Ref | null;
      conditions: Record<string, unknown>;
    }
  /** Absent fields are unchanged; parent null detaches the set from its parent. */
  | {
      type: 'UpdateConditionSet';
      set: Ref;
      name?: string;
      description?: string;
      parent?: Ref | null;
      conditions?: Record<string, unknown>;
    }
  | { type: 'DeleteConditionSet'; set: Ref }
  /** `permission` is `type:action` (or an action id); isRole / isResource as Permit's is_role / is_resource. */
  | { type: 'CreateSetRule'; id: string; userSet: Ref; permission: string; resourceSet: Ref; isRole: boolean; isResource: boolean }
  | { type: 'DeleteSetRule'; userSet: Ref; permission: string; resourceSet: Ref; isRole: boolean; isResource: boolean }
  /** Facts commands decided in order and appended together, or not at all (the bulk endpoints). */
  | { type: 'Bulk'; commands: BulkItemCommand[] };

/** What a Bulk command may hold: facts whose events only add or remove map entries (see scratch.ts). */
export type BulkItemCommand = Extract<
  EnvCommand,
  { type: 'CreateInstance' | 'DeleteInstance' | 'AssignRole' | 'UnassignRole' | 'CreateTuple' | 'DeleteTuple' }
>;
