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
      /** Keys or ids of roles of the same scope whose permissions this role inherits. */
      extends?: Ref[];
      /** `granted_to.when.no_direct_roles_on_object`; absent: unchanged (false for a new role). */
      noDirectRolesOnObject?: boolean;
    }
  | {
      type: 'UpdateRole';
      resource: Ref | null;
      role: Ref;
      name?: string;
      description?: string;
      permissions?: string[];
      grantedTo?: DerivationRule[];
      extends?: Ref[];
      noDirectRolesOnObject?: boolean;
    }
  | { type: 'DeleteRole'; resource: Ref | null; role: Ref }
  /** Adds permissions to the role's own list (those it has already are kept once). */
  | { type: 'AssignRolePermissions'; resource: Ref | null; role: Ref; permissions: string[] }
  /** Removes permissions from the role's own list; one it does not have is no error (Permit's idempotent removal). */
  | { type: 'RemoveRolePermissions'; resource: Ref | null; role: Ref; permissions: string[] }
  /** `PUT …/implicit_grants/conditions`. */
  | { type: 'SetDerivationConditions'; resource: Ref; role: Ref; noDirectRolesOnObject: boolean }
  /** `noDirectRolesOnObject`: the rule's `when`, which sets the role's condition (Permit keeps one per role). */
  | { type: 'AddImplicitGrant'; resource: Ref; role: Ref; rule: DerivationRule; noDirectRolesOnObject?: boolean }
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
  /** Facts commands decided in order and appended together, or not at all (the bulk endpoints). */
  | { type: 'Bulk'; commands: BulkItemCommand[] };

/** What a Bulk command may hold: facts whose events only add or remove map entries (see scratch.ts). */
export type BulkItemCommand = Extract<
  EnvCommand,
  { type: 'CreateInstance' | 'DeleteInstance' | 'AssignRole' | 'UnassignRole' | 'CreateTuple' | 'DeleteTuple' }
>;
