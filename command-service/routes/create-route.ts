import type { z } from 'zod';
import { envOf } from '../http/auth';
import { createLane, type CreateOperation } from '../http/create-lane';
import { executeEnvCommand } from '../http/services';
import { refusingUndeclaredFields } from '../http/validation';
import { route, type RouteDeclaration } from './route';
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
  route(context, declaration, async (req, res, input) => {
    const { id, command } = operation.command((input as { body(): z.infer<Body> }).body());
    await executeEnvCommand(services, req, res, envOf(res).id, command);
    res.json(await operation.answer(id));
  });
  const template = `${context.base}${declaration.path}`;
  if (template.match(/\{[^}]+\}/g)?.join() !== '{proj_id},{env_id}')
    throw new Error(`createRoute: ${template} has parameters besides {proj_id}/{env_id}`);
  let takenByMoreLiteral: ((path: string) => boolean) | undefined;
  context.fastLanes.push(
    createLane(context, {
      template,
      body: refusingUndeclaredFields(declaration.body),
      operation,
      takenByMoreLiteral: (path) => (takenByMoreLiteral ??= api.moreLiteralThan(template))(path),
    }),
  );
}
