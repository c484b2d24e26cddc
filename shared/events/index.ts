import { z } from 'zod';
import { envEventSchemas, type EnvEvent } from './env-events';
import { orgEventSchemas, type OrgEvent } from './org-events';
import { taskEventSchemas, type TaskEvent } from './task-events';

export * from './envelope';
export type { EnvEvent, EnvEventOf, DerivationRule } from './env-events';
export type { OrgEvent, ApiKeyScope } from './org-events';
export type { TaskEvent } from './task-events';

/** Every event the service writes, as one zod discriminated union on `type`. */
export const domainEventSchema = z.discriminatedUnion('type', [...orgEventSchemas, ...envEventSchemas, ...taskEventSchemas]);
export type DomainEvent = OrgEvent | EnvEvent | TaskEvent;
export type DomainEventType = DomainEvent['type'];
export type EventOf<T extends DomainEventType> = Extract<DomainEvent, { type: T }>;
