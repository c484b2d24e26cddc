import { z } from 'zod';
import { envEventSchemas } from './env-events';
import { orgEventSchemas } from './org-events';
import { taskEventSchemas } from './task-events';

export * from './envelope';
export * from './catalogue';
export * from './handlers';
export type { EnvEvent, EnvEventOf, DerivationRule, AttributeDef, AttributeType, MappingRule, AssertionDefinition } from './env-events';
export { attributeTypes, proxyAuthMechanisms, proxyHttpMethods, assertionDefinitionSchema } from './env-events';
export type { OrgEvent, ApiKeyScope } from './org-events';
export type { TaskEvent } from './task-events';

/** Every event the service writes, as one zod discriminated union on `type`. */
export const domainEventSchema = z.discriminatedUnion('type', [...orgEventSchemas, ...envEventSchemas, ...taskEventSchemas]);
