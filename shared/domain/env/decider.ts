import type { Decider } from '../../cqrs/decider';
import type { EnvEvent } from '../../events';
import type { EnvCommand } from './commands';
import * as abac from './abac-decisions';
import { bulk } from './bulk';
import * as directory from './directory-decisions';
import * as facts from './facts-decisions';
import * as invites from './invite-decisions';
import * as schema from './schema-decisions';
import * as parts from './resource-parts-decisions';
import * as proxy from './proxy-config-decisions';
import * as assertions from './assertion-decisions';
import * as groups from './group-decisions';
import { evolveEnv } from './fold';
import { expireDue } from './expiry-decisions';
import { envStateData, envStateOf, initialEnvState, type EnvState, type EnvStateData } from './state';

function decide(command: EnvCommand, state: EnvState): EnvEvent[] {
  switch (command.type) {
    case 'CreateResource':
      return schema.createResource(command, state);
    case 'UpdateResource':
      return parts.updateResource(command, state);
    case 'DeleteResource':
      return schema.deleteResource(command, state);
    case 'CreateAction':
      return parts.createAction(command, state);
    case 'UpdateAction':
      return parts.updateAction(command, state);
    case 'DeleteAction':
      return parts.deleteAction(command, state);
    case 'CreateAttribute':
      return parts.createAttribute(command, state);
    case 'UpdateAttribute':
      return parts.updateAttribute(command, state);
    case 'DeleteAttribute':
      return parts.deleteAttribute(command, state);
    case 'CreateActionGroup':
      return parts.createActionGroup(command, state);
    case 'UpdateActionGroup':
      return parts.updateActionGroup(command, state);
    case 'DeleteActionGroup':
      return parts.deleteActionGroup(command, state);
    case 'CreateRole':
      return schema.createRole(command, state);
    case 'UpdateRole':
      return schema.updateRole(command, state);
    case 'DeleteRole':
      return schema.deleteRole(command, state);
    case 'AssignRolePermissions':
      return schema.assignRolePermissions(command, state);
    case 'RemoveRolePermissions':
      return schema.removeRolePermissions(command, state);
    case 'AddRoleParent':
      return schema.addRoleParent(command, state);
    case 'RemoveRoleParent':
      return schema.removeRoleParent(command, state);
    case 'SetDerivationConditions':
      return schema.setDerivationConditions(command, state);
    case 'AddImplicitGrant':
      return schema.addImplicitGrant(command, state);
    case 'RemoveImplicitGrant':
      return schema.removeImplicitGrant(command, state);
    case 'CreateRelation':
      return schema.createRelation(command, state);
    case 'DeleteRelation':
      return schema.deleteRelation(command, state);
    case 'ExpireDue':
      return expireDue(command, state);
    case 'CreateTenant':
      return facts.createTenant(command, state);
    case 'UpdateTenant':
      return directory.updateTenant(command, state);
    case 'DeleteTenant':
      return facts.deleteTenant(command, state);
    case 'RemoveTenantUser':
      return directory.removeTenantUser(command, state);
    case 'CreateUser':
      return directory.createUser(command, state);
    case 'ReplaceUser':
      return directory.replaceUser(command, state);
    case 'UpdateUser':
      return directory.updateUser(command, state);
    case 'DeleteUser':
      return directory.deleteUser(command, state);
    case 'CreateInstance':
      return facts.createInstance(command, state);
    case 'UpdateInstance':
      return directory.updateInstance(command, state);
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
    case 'CreateConditionSet':
      return abac.createConditionSet(command, state);
    case 'UpdateConditionSet':
      return abac.updateConditionSet(command, state);
    case 'DeleteConditionSet':
      return abac.deleteConditionSet(command, state);
    case 'CreateSetRule':
      return abac.createSetRule(command, state);
    case 'DeleteSetRule':
      return abac.deleteSetRule(command, state);
    case 'CreateProxyConfig':
      return proxy.createProxyConfig(command, state);
    case 'UpdateProxyConfig':
      return proxy.updateProxyConfig(command, state);
    case 'DeleteProxyConfig':
      return proxy.deleteProxyConfig(command, state);
    case 'SaveAssertions':
      return assertions.saveAssertions(command, state);
    case 'DeleteAssertion':
      return assertions.deleteAssertion(command, state);
    case 'CreateGroup':
      return groups.createGroup(command, state);
    case 'DeleteGroup':
      return groups.deleteGroup(command, state);
    case 'AddGroupUser':
      return groups.addGroupUser(command, state);
    case 'RemoveGroupUser':
      return groups.removeGroupUser(command, state);
    case 'AssignGroupRole':
      return groups.assignGroupRole(command, state);
    case 'RemoveGroupRole':
      return groups.removeGroupRole(command, state);
    case 'CreateUserInvite':
      return invites.createUserInvite(command, state);
    case 'UpdateUserInvite':
      return invites.updateUserInvite(command, state);
    case 'ApproveUserInvite':
      return invites.approveUserInvite(command, state);
    case 'DeleteUserInvite':
      return invites.deleteUserInvite(command, state);
    case 'Bulk':
      return bulk(command, state);
  }
}

/** The environment stream's decider: schema and facts of one environment. */
export const envDecider: Decider<EnvCommand, EnvState, EnvEvent> = {
  initialState: initialEnvState,
  evolve: evolveEnv,
  decide,
  snapshot: { toData: envStateData, fromData: (data) => envStateOf(data as EnvStateData) },
};
