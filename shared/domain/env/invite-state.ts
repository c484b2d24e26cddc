/**
 * User invites as the environment decider knows them (docs/permit-compat.md, "User invites"):
 * what each says, and whether it was approved. Kept apart from `EnvState.ids`, whose ids name
 * objects a path may take in place of a key (users, tenants…): an invite's id must never find a
 * user whose key happens to be the invite's.
 */
export interface UserInviteState {
  id: string;
  key: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  /** Role key; `roleResource` its resource type (null: a top-level role). */
  role: string;
  roleResource: string | null;
  tenant: string;
  /** `type:key`, or null. */
  resourceInstance: string | null;
  status: 'pending' | 'approved';
}

export interface UserInviteStates {
  byKey: Map<string, UserInviteState>;
  /** id → key. */
  keyOfId: Map<string, string>;
}

export const emptyUserInviteStates = (): UserInviteStates => ({ byKey: new Map(), keyOfId: new Map() });
