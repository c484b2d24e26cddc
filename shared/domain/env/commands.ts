import type { AssertionDefinition, AttributeType, DerivationRule, MappingRule } from '../../events';
import type { SealedSecret } from '../../secrets/sealed-secret';

/** A reference to an object by key or by id (every path id accepts either). */
export type Ref = string;

export interface ActionInput {
  /** Used when the action is new; an existing action keeps its id. */
  id: string;
  key: string;
  name: string;
  description: string | null;
}
export interface AttributeInput {
  /** Used when the attribute is new; an existing attribute keeps its id. */
  id: string;
  key: string;
  type: AttributeType;
  description: string | null;
}
/** A role created with its resource (POST /resources `roles`): its permissions are the resource's actions. */
export interface InlineRoleInput {
  id: string;
  key: string;
  name: string;
  description: string | null;
  permissions: string[];
  attributes: Record<string, unknown>;
}
/** A relation created with its (object) resource (POST /resources `relations`). */
export interface InlineRelationInput {
  id: string;
  key: string;
  name: string;
  description: string | null;
  /** A resource key or id; the resource being created may name itself. */
  subjectResource: Ref;
}

/** A role to assign with a user (`role_assignments` of a user body); ids arrive from outside. */
export interface InlineAssignment {
  id: string;
  /** Id for the resource instance if the assignment creates it (an instance that does not exist, with a tenant). */
  newInstanceId: string;
  role: string;
  tenant: string | null;
  resourceInstance: string | null;
}

/** A user's profile fields; absent: unchanged (an update), or reset (a replace fills every one). */
export interface UserProfileChange {
  email?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  attributes?: Record<string, unknown>;
}

/** Commands on an environment stream. Ids of new objects and the clock arrive from outside (DESIGN §3). */
export type EnvCommand =
  | {
      type: 'CreateResource';
      id: string;
      key: string;
      name: string;
      description: string | null;
      urn: string | null;
      actions: ActionInput[];
      attributes: AttributeInput[];
      roles?: InlineRoleInput[];
      relations?: InlineRelationInput[];
    }
  | {
      /**
       * PATCH (replace false): the fields given change; listed actions and attributes are
       * created or updated, others stay. PUT (replace true): the resource becomes what is
       * given; an omitted description or urn becomes null, unlisted actions and attributes
       * are deleted (an action with what grants it, see Cascade.action).
       */
      type: 'UpdateResource';
      resource: Ref;
      replace: boolean;
      name?: string;
      description?: string | null;
      urn?: string | null;
      actions?: ActionInput[];
      attributes?: AttributeInput[];
    }
  | { type: 'DeleteResource'; resource: Ref }
  | { type: 'CreateAction'; resource: Ref; action: ActionInput }
  | { type: 'UpdateAction'; resource: Ref; action: Ref; name?: string; description?: string | null }
  | { type: 'DeleteAction'; resource: Ref; action: Ref }
  | { type: 'CreateAttribute'; resource: Ref; attribute: AttributeInput }
  | { type: 'UpdateAttribute'; resource: Ref; attribute: Ref; attributeType?: AttributeType; description?: string | null }
  | { type: 'DeleteAttribute'; resource: Ref; attribute: Ref }
  | {
      type: 'CreateActionGroup';
      resource: Ref;
      id: string;
      key: string;
      name: string;
      description: string | null;
      actions: string[];
    }
  | { type: 'UpdateActionGroup'; resource: Ref; group: Ref; name?: string; description?: string | null; actions?: string[] }
  | { type: 'DeleteActionGroup'; resource: Ref; group: Ref }
  | {
      type: 'CreateRole';
      id: string;
      /** null: a top-level (tenant) role whose permissions are `resource:action`. */
      resource: Ref | null;
      key: string;
      name: string;
      description: string | null;
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
  /** `PUT …/roles/{role}/parents/{parent}`: the role extends `parent` too (already: nothing changes). */
  | { type: 'AddRoleParent'; resource: Ref | null; role: Ref; parent: Ref }
  /** `DELETE …/roles/{role}/parents/{parent}`: the role no longer extends `parent` (it did not: nothing changes). */
  | { type: 'RemoveRoleParent'; resource: Ref | null; role: Ref; parent: Ref }
  /** `PUT …/implicit_grants/conditions`. */
  | { type: 'SetDerivationConditions'; resource: Ref; role: Ref; noDirectRolesOnObject: boolean }
  /** `noDirectRolesOnObject`: the rule's `when`, which sets the role's condition (Permit keeps one per role). */
  | { type: 'AddImplicitGrant'; resource: Ref; role: Ref; rule: DerivationRule; noDirectRolesOnObject?: boolean }
  | { type: 'RemoveImplicitGrant'; resource: Ref; role: Ref; rule: DerivationRule }
  | {
      type: 'CreateRelation';
      id: string;
      objectResource: Ref;
      key: string;
      name: string;
      description: string | null;
      subjectResource: Ref;
    }
  | { type: 'DeleteRelation'; objectResource: Ref; relation: Ref }
  | { type: 'CreateTenant'; id: string; key: string; name: string; description: string | null; attributes: Record<string, unknown> }
  | { type: 'UpdateTenant'; tenant: Ref; name?: string; description?: string | null; attributes?: Record<string, unknown> }
  | { type: 'DeleteTenant'; tenant: Ref }
  /** Removes every role `user` holds in `tenant` (tenant roles and roles on its instances). */
  | { type: 'RemoveTenantUser'; tenant: Ref; user: Ref }
  | {
      type: 'CreateUser';
      id: string;
      key: string;
      email: string | null;
      firstName: string | null;
      lastName: string | null;
      attributes: Record<string, unknown>;
      /** Assigned in the same decision: all or none. */
      roleAssignments?: InlineAssignment[];
    }
  /** Upsert (PUT, sync): creates the user, or replaces its profile; assigns the roles it does not hold yet. */
  | {
      type: 'ReplaceUser';
      id: string;
      key: string;
      email: string | null;
      firstName: string | null;
      lastName: string | null;
      attributes: Record<string, unknown>;
      roleAssignments: InlineAssignment[];
    }
  | ({ type: 'UpdateUser'; user: Ref } & UserProfileChange)
  /** Deletes the user's role assignments (explicit RoleUnassigned events), then the user. */
  | { type: 'DeleteUser'; user: Ref }
  | { type: 'CreateInstance'; id: string; key: string; resource: Ref; tenant: Ref; attributes: Record<string, unknown> }
  | { type: 'UpdateInstance'; instance: Ref; attributes?: Record<string, unknown> }
  | { type: 'DeleteInstance'; instance: Ref }
  | {
      type: 'AssignRole';
      id: string;
      /** Id for the user if this assignment creates it. */
      newUserId: string;
      /** The user must exist already (`POST /users/{user_id}/roles`): not created. */
      userMustExist?: boolean;
      /** Id for the resource instance if the assignment creates it (it does not exist, and a tenant is given). */
      newInstanceId?: string;
      user: string;
      role: string;
      tenant: string | null;
      resourceInstance: string | null;
      /**
       * `expires_at` as sent (an ISO instant in UTC, checked to be in the future by the route):
       * absent, the write is Permit's (an existing assignment is a duplicate); given (null: no
       * end), an existing assignment takes it as its end (docs/expiring-access.md).
       */
      expiresAt?: string | null;
      /** When the write is asked (an ISO instant, the route's clock): an assignment that ended by then is no duplicate. */
      now?: string;
    }
  | { type: 'UnassignRole'; user: string; role: string; tenant: string | null; resourceInstance: string | null }
  | {
      type: 'CreateTuple';
      id: string;
      subject: string;
      relation: string;
      object: string;
      tenant: string | null;
      /** Ids for the subject and object instances if the tuple creates them (they do not exist, and a tenant is given). */
      newSubjectId?: string;
      newObjectId?: string;
      /** As AssignRole's `expiresAt` and `now`. */
      expiresAt?: string | null;
      now?: string;
    }
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
  | {
      type: 'CreateProxyConfig';
      id: string;
      key: string;
      name: string;
      authMechanism: 'Bearer' | 'Basic' | 'Headers';
      /** Sealed by the route (it holds the key); the decider checks its form. */
      secret: SealedSecret;
      mappingRules: MappingRule[];
    }
  /**
   * Absent fields are unchanged. Mapping rules merge into the stored ones by url and
   * http_method (Permit's PATCH): a rule with `shouldDelete` removes its match, another
   * replaces its match in place, or is added at the end.
   */
  | {
      type: 'UpdateProxyConfig';
      config: Ref;
      name?: string;
      authMechanism?: 'Bearer' | 'Basic' | 'Headers';
      secret?: SealedSecret;
      mappingRules?: Array<MappingRule & { shouldDelete: boolean }>;
    }
  | { type: 'DeleteProxyConfig'; config: Ref }
  /**
   * Assertions (assertion-decisions.ts), whole definitions: each is created, or replaces the one
   * with its id. `replaceAll`: the others are deleted (an import that replaces).
   */
  | { type: 'SaveAssertions'; assertions: AssertionDefinition[]; replaceAll: boolean; mustExist: boolean }
  | { type: 'DeleteAssertion'; id: string }
  /** Groups (group-decisions.ts): `typeId`, `memberRoleId` are used when the built-in `__group` type or its role does not exist yet. */
  | { type: 'CreateGroup'; id: string; typeId: string; memberRoleId: string; key: string; tenant: Ref }
  | { type: 'DeleteGroup'; group: Ref }
  /** tenant null: the group's. */
  | { type: 'AddGroupUser'; id: string; group: Ref; user: Ref; tenant: Ref | null }
  | { type: 'RemoveGroupUser'; group: Ref; user: Ref; tenant: Ref | null }
  /** `relationId`: for the relation `__group_<role>` on the role's type, made with the first such assignment. */
  | {
      type: 'AssignGroupRole';
      id: string;
      relationId: string;
      group: Ref;
      role: Ref;
      resource: Ref;
      resourceInstance: Ref;
      tenant: Ref | null;
    }
  | { type: 'RemoveGroupRole'; group: Ref; role: Ref; resource: Ref; resourceInstance: Ref; tenant: Ref | null }
  | {
      type: 'CreateUserInvite';
      id: string;
      key: string;
      email: string;
      firstName: string | null;
      lastName: string | null;
      status: 'pending' | 'approved';
      /** A role's id, or a top-level role's key. */
      role: Ref;
      tenant: Ref;
      resourceInstance: Ref | null;
    }
  | {
      type: 'UpdateUserInvite';
      invite: Ref;
      /** Must be the invite's own key when given (keys do not change). */
      key?: string;
      email?: string;
      firstName?: string | null;
      lastName?: string | null;
      status?: 'pending' | 'approved';
      role?: Ref;
      tenant?: Ref;
      resourceInstance?: Ref | null;
    }
  /** Makes (or updates) user `user` as the invite says and gives it the invite's role; ids of what it may create arrive here. */
  | {
      type: 'ApproveUserInvite';
      invite: Ref;
      user: string;
      email: string;
      attributes: Record<string, unknown>;
      newUserId: string;
      assignmentId: string;
    }
  | { type: 'DeleteUserInvite'; invite: Ref }
  /** Facts commands decided in order and appended together, or not at all (the bulk endpoints). */
  | { type: 'Bulk'; commands: BulkItemCommand[] }
  /** The expiry scheduler's: every end at or before `now` (an ISO instant) expires (expiry-decisions.ts). */
  | { type: 'ExpireDue'; now: string };

/** What a Bulk command may hold: facts whose events only add or remove map entries (see scratch.ts). */
export type BulkItemCommand = Extract<
  EnvCommand,
  {
    type:
      | 'CreateInstance'
      | 'DeleteInstance'
      | 'AssignRole'
      | 'UnassignRole'
      | 'CreateTuple'
      | 'DeleteTuple'
      | 'CreateUser'
      | 'ReplaceUser'
      | 'DeleteUser'
      | 'CreateTenant'
      | 'DeleteTenant';
  }
>;
