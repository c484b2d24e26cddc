import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { EnvEvent } from '../../shared/events';
import { envOf } from '../http/auth';
import { createLane, type CreateOperation } from '../http/create-lane';
import { executeEnvCommand, type Services } from '../http/services';
import { refusingUndeclaredFields } from '../http/validation';
import { moreLiteralPaths, route, type RouteDeclaration } from './route';
import type { RouteContext } from './route-context';

/**
 * Declares a route that creates one object in the path's environment (`POST` to a collection of
 * a `/{proj_id}/{env_id}` group): the express route, and a fast lane that answers the common
 * request without express (http/create-lane.ts). Both run `operation`, so they cannot drift.
 */
export function createRoute<Path extends string, Body extends z.ZodType>(
  context: RouteContext,
  declaration: RouteDeclaration<Path, Body, undefined> & { method: 'post'; body: Body },
  operation: CreateOperation<z.infer<Body>>,
): void {
  const { services, api } = context;
  route(context, declaration, (req, res, input) =>
    executeCreate(services, req, res, operation, (input as { body(): z.infer<Body> }).body()),
  );
  const template = `${context.base}${declaration.path}`;
  if (template.match(/\{[^}]+\}/g)?.join() !== '{proj_id},{env_id}')
    throw new Error(`createRoute: ${template} has parameters besides {proj_id}/{env_id}`);
  context.fastLanes.push(
    createLane(context, {
      template,
      body: refusingUndeclaredFields(declaration.body),
      operation,
      takenByMoreLiteral: moreLiteralPaths(api, template),
    }),
  );
}

/** An express route's part of a create: the operation's command in the path's environment, then its answer. */
export async function executeCreate<Body>(
  services: Services,
  req: Request,
  res: Response,
  operation: CreateOperation<Body>,
  body: Body,
): Promise<void> {
  const { id, command } = operation.command(body);
  const outcome = await executeEnvCommand(services, req, res, envOf(res).id, command);
  res.json(await operation.answer(id, outcome.events));
}

/**
 * The id of the assignment or tuple a create wrote: the new one's (`id`), or, when it existed and
 * was written again with an end (docs/expiring-access.md), the existing one's, which its
 * `…ExpirySet` event names.
 */
export function writtenFactId(id: string, events: readonly EnvEvent[]): string {
  const moved = events.find((e) => e.type === 'RoleAssignmentExpirySet' || e.type === 'RelationshipTupleExpirySet');
  return moved ? moved.data.id : id;
}
