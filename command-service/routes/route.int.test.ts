import express from 'express';
import pino from 'pino';
import request from 'supertest';
import { z } from 'zod';
import { NotFoundError } from '../../shared/errors';
import { errorMiddleware } from '../http/error-middleware';
import { ApiRegistry } from '../http/openapi';
import { route } from './route';

/** The headers every operation documents (read-your-writes.ts). */

/** `route` on a bare express app: one declaration, served and documented. */
describe('route', () => {
  function appWith(declare: (context: { router: express.Router; api: ApiRegistry; base: string }) => void) {
    const api = new ApiRegistry();
    const router = express.Router();
    declare({ router, api, base: '/groups/{group_id}' });
    const app = express();
    app.use(express.json());
    app.use('/groups/:group_id', router);
    app.use(errorMiddleware(pino({ level: 'silent' })));
    return { app, api };
  }

  it('serves the express form of the path and documents the group base plus the template', async () => {
    const { app, api } = appWith((context) =>
      route(
        context,
        { method: 'get', path: '/things/{thing_id}', summary: 'Get a thing', tag: 'Things', response: z.object({ thing: z.string() }) },
        (req, res) => {
          res.json({ thing: req.params.thing_id });
        },
      ),
    );
    const r = await request(app).get('/groups/g1/things/t1');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ thing: 't1' });
    expect(api.declared()).toEqual([{ method: 'get', path: '/groups/{group_id}/things/{thing_id}' }]);
    const operation = (api.document().paths as Record<string, Record<string, { parameters: Array<{ name: string }> }>>)[
      '/groups/{group_id}/things/{thing_id}'
    ]!.get!;
    expect(operation.parameters.map((p) => p.name)).toEqual(['group_id', 'thing_id']);
  });

  describe('input parsed with the declared schemas', () => {
    let bodyParses = 0;
    const body = z.object({
      name: z.string().transform((name) => {
        bodyParses += 1;
        return name.toUpperCase();
      }),
    });
    const query = z.object({ missing: z.enum(['yes', 'no']).default('no') });
    const { app, api } = appWith((context) =>
      route(
        context,
        {
          method: 'post',
          path: '/things',
          summary: 'Create',
          tag: 'Things',
          body,
          query,
          response: z.object({ first: z.string(), again: z.string() }),
        },
        (_req, res, input) => {
          if (input.query().missing === 'yes') throw new NotFoundError('The group is missing');
          res.json({ first: input.body().name, again: input.body().name });
        },
      ),
    );
    beforeEach(() => (bodyParses = 0));

    it('hands the parsed values to the handler, each parsed once however often it is asked for', async () => {
      const r = await request(app).post('/groups/g1/things').send({ name: 'box' });
      expect(r.body).toEqual({ first: 'BOX', again: 'BOX' });
      expect(bodyParses).toBe(1);
    });

    it("answers 422 with the declared schema's issues", async () => {
      const badBody = await request(app).post('/groups/g1/things').send({ name: 7 });
      expect(badBody.status).toBe(422);
      expect(badBody.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual([['body', 'name']]);
      const badQuery = await request(app).post('/groups/g1/things?missing=perhaps').send({ name: 7 });
      expect(badQuery.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual([['query', 'missing']]);
    });

    it('parses a part only when the handler asks for it, so a check before it wins', async () => {
      const r = await request(app).post('/groups/g1/things?missing=yes').send({ name: 7 });
      expect(r.status).toBe(404);
      expect(bodyParses).toBe(0);
    });

    it('documents the same schemas', () => {
      const operation = (api.document().paths as Record<string, Record<string, any>>)['/groups/{group_id}/things']!.post;
      expect(operation.requestBody.content['application/json'].schema.properties).toEqual({ name: { type: 'string' } });
      expect(operation.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual([
        'path:group_id',
        'query:missing',
      ]);
    });
  });
});
