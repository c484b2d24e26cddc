import { deterministicId } from '../../ids';
import type { EnvCommand } from './commands';

/** The tenant every environment has from its creation, as in Permit (the SDKs fill it in when a call names none). */
export const DEFAULT_TENANT_KEY = 'default';

/**
 * The command that gives a new environment its `default` tenant: the first
 * event of its stream. The id is derived from the environment's, so a retry
 * names the same tenant (and the decider refuses a second one).
 */
export function defaultTenantCommand(environmentId: string): Extract<EnvCommand, { type: 'CreateTenant' }> {
  return {
    type: 'CreateTenant',
    id: deterministicId(environmentId, 'default-tenant'),
    key: DEFAULT_TENANT_KEY,
    name: 'Default Tenant',
    description: '',
    attributes: {},
  };
}
