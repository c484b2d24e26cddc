import { InvalidRequestError, NotFoundError, ValidationError } from '../../errors';
import type { EnvEvent } from '../../events';
import { deciderSpecification } from '../../testing/decider-specification';
import { envDecider } from './decider';

const spec = deciderSpecification(envDecider);

const doc: EnvEvent = {
  type: 'ResourceCreated',
  data: {
    id: 'r-doc',
    key: 'doc',
    name: 'Doc',
    description: '',
    actions: [{ id: 'a-read', key: 'read', name: 'read', description: '' }],
    attributes: { pages: { type: 'number' } },
  },
};
const auditor: EnvEvent = {
  type: 'RoleCreated',
  data: { id: 'ro-aud', key: 'auditor', resource: null, name: 'Auditor', description: '', permissions: [], attributes: {} },
};
const setCreated = (
  key: string,
  extra: Partial<{
    type: 'userset' | 'resourceset';
    resource: string | null;
    parent: string | null;
    conditions: Record<string, unknown>;
  }> = {},
): EnvEvent => ({
  type: 'ConditionSetCreated',
  data: { id: `cs-${key}`, key, type: 'userset', resource: null, name: key, description: '', parent: null, conditions: {}, ...extra },
});
const adults = setCreated('adults');
const euAdults = setCreated('eu', { parent: 'adults' });
const longDocs = setCreated('long', { type: 'resourceset', resource: 'doc', conditions: { 'resource.pages': { 'greater-than': 10 } } });
const ruleData = (userSet: string, resourceSet: string, flags: { role?: boolean; resource?: boolean } = {}) => ({
  id: `sr-${userSet}`,
  key: `${userSet}_doc_read_${resourceSet}`,
  userSet,
  userSetIsRole: flags.role ?? false,
  permission: 'doc:read',
  resourceSet,
  resourceSetIsResource: flags.resource ?? false,
});

describe('environment decider: condition sets and set rules', () => {
  it('creates a resource set whose conditions fit the attribute schema', () => {
    spec
      .given([doc])
      .when({
        type: 'CreateConditionSet',
        id: 'cs-long',
        key: 'long',
        setType: 'resourceset',
        resource: 'r-doc',
        name: 'long',
        description: '',
        parent: null,
        conditions: { 'resource.pages': { 'greater-than': 10 } },
      })
      .then([longDocs]);
  });

  it('refuses a comparison the declared type cannot make (422 detail)', () => {
    spec
      .given([doc])
      .when({
        type: 'CreateConditionSet',
        id: 'x',
        key: 'x',
        setType: 'resourceset',
        resource: 'doc',
        name: 'x',
        description: '',
        parent: null,
        conditions: { 'resource.pages': { equals: 'ten' } },
      })
      .thenThrows(ValidationError, /resource\.pages/);
  });

  it('refuses a parent of another type, and a cycle', () => {
    spec
      .given([doc, adults, longDocs])
      .when({ type: 'UpdateConditionSet', set: 'adults', parent: 'long' })
      .thenThrows(InvalidRequestError, /same type/);
    spec
      .given([doc, adults, euAdults])
      .when({ type: 'UpdateConditionSet', set: 'adults', parent: 'eu' })
      .thenThrows(InvalidRequestError, /ancestor/);
  });

  it('grants a permission to a user set on a resource set of its type; a second grant changes nothing', () => {
    const command = {
      type: 'CreateSetRule' as const,
      id: 'sr-adults',
      userSet: 'adults',
      permission: 'doc:read',
      resourceSet: 'long',
      isRole: false,
      isResource: false,
    };
    spec
      .given([doc, adults, longDocs])
      .when(command)
      .then([{ type: 'SetRuleCreated', data: ruleData('adults', 'long') }]);
    spec
      .given([doc, adults, longDocs, { type: 'SetRuleCreated', data: ruleData('adults', 'long') }])
      .when(command)
      .then([]);
    spec
      .given([doc, adults, longDocs])
      .when({ ...command, permission: 'doc:fly' })
      .thenThrows(NotFoundError, /fly/);
  });

  it('deleting a set takes its descendants and the rules naming them, dependents first', () => {
    spec
      .given([doc, adults, euAdults, longDocs, { type: 'SetRuleCreated', data: ruleData('eu', 'long') }])
      .when({ type: 'DeleteConditionSet', set: 'adults' })
      .then([
        { type: 'SetRuleDeleted', data: ruleData('eu', 'long') },
        { type: 'ConditionSetDeleted', data: { id: 'cs-eu', key: 'eu', type: 'userset', resource: null } },
        { type: 'ConditionSetDeleted', data: { id: 'cs-adults', key: 'adults', type: 'userset', resource: null } },
      ]);
  });

  it('deleting a role used as a user set deletes its rules; deleting a resource type its resource sets', () => {
    const byRole = ruleData('auditor', 'doc', { role: true, resource: true });
    spec
      .given([doc, auditor, { type: 'SetRuleCreated', data: byRole }])
      .when({ type: 'DeleteRole', resource: null, role: 'auditor' })
      .thenContains([{ type: 'SetRuleDeleted', data: byRole }]);
    spec
      .given([doc, adults, longDocs, { type: 'SetRuleCreated', data: ruleData('adults', 'long') }])
      .when({ type: 'DeleteResource', resource: 'doc' })
      .thenContains([
        { type: 'SetRuleDeleted', data: ruleData('adults', 'long') },
        { type: 'ConditionSetDeleted', data: { id: 'cs-long', key: 'long', type: 'resourceset', resource: 'doc' } },
        { type: 'ResourceDeleted', data: { id: 'r-doc', key: 'doc' } },
      ]);
  });
});
