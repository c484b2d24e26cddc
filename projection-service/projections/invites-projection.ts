import type { EnvEvent, EnvEventOf } from '../../shared/events';
import type { EnvContext, CreatedFields } from '../../shared/read-models/projection';
import type { ReadModels, UserInviteDoc } from '../../shared/read-models/read-models';
import { splitRef } from '../../shared/refs';

/** What an invite handler writes with (the facts projection's scope). */
interface InviteScope {
  rm: ReadModels;
  ctx: EnvContext;
  at: string;
  common: CreatedFields;
}

type Handler<T extends EnvEvent['type']> = (scope: InviteScope, event: EnvEventOf<T>) => Promise<void>;
type Definition = EnvEventOf<'UserInviteCreated'>['data'];

/**
 * The ids of what an invite names, from the read models (the log names them by key, so a copied
 * environment's invite names the copy's own objects). The events come after the objects', so
 * they are found; '' if one is not (a log no decider wrote).
 */
async function definitionFields({ rm, ctx }: InviteScope, d: Definition) {
  const env = ctx.environment_id;
  const role =
    d.roleResource === null
      ? await rm.roles.findOne({ environment_id: env, key: d.role })
      : await rm.resourceRoles.findOne({ environment_id: env, resource: d.roleResource, key: d.role });
  const tenant = await rm.tenants.findOne({ environment_id: env, key: d.tenant });
  let instanceId: string | null = null;
  if (d.resourceInstance !== null) {
    const [resource, key] = splitRef(d.resourceInstance);
    instanceId = (await rm.instances.findOne({ environment_id: env, resource, key }))?.id ?? '';
  }
  return {
    email: d.email,
    first_name: d.firstName,
    last_name: d.lastName,
    role_id: role?.id ?? '',
    tenant_id: tenant?.id ?? '',
    resource_instance_id: instanceId,
    _role: d.role,
    _role_resource: d.roleResource,
    _tenant: d.tenant,
    _resource_instance: d.resourceInstance,
  };
}

/** User invites as Permit reads them (ElementsUserInviteRead). */
export const inviteProjectionHandlers: {
  UserInviteCreated: Handler<'UserInviteCreated'>;
  UserInviteUpdated: Handler<'UserInviteUpdated'>;
  UserInviteApproved: Handler<'UserInviteApproved'>;
  UserInviteDeleted: Handler<'UserInviteDeleted'>;
} = {
  async UserInviteCreated(scope, { data: d }) {
    const doc: UserInviteDoc = { id: d.id, key: d.key, status: 'pending', ...(await definitionFields(scope, d)), ...scope.common };
    await scope.rm.userInvites.put(doc);
  },
  async UserInviteUpdated(scope, { data: d }) {
    const doc = await scope.rm.userInvites.get(d.id);
    if (doc) await scope.rm.userInvites.put({ ...doc, ...(await definitionFields(scope, d)), updated_at: scope.at });
  },
  async UserInviteApproved({ rm, at }, { data: d }) {
    const doc = await rm.userInvites.get(d.id);
    if (doc) await rm.userInvites.put({ ...doc, status: 'approved', updated_at: at });
  },
  async UserInviteDeleted({ rm }, { data: d }) {
    await rm.userInvites.delete(d.id);
  },
};
