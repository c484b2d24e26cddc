import { z } from 'zod';
import { NotFoundError } from '../../shared/errors';
import type { MappingRule } from '../../shared/events';
import { proxyAuthMechanisms, proxyHttpMethods } from '../../shared/events';
import { newId } from '../../shared/ids';
import type { ProxyConfigDoc, ReadModels } from '../../shared/read-models/read-models';
import { envOf } from '../http/auth';
import { present } from '../http/present';
import { proxyConfigListSchema, proxyConfigSchema } from '../http/responses';
import { executeEnvCommand } from '../http/services';
import { keySchema, paginationSchema } from '../http/validation';
import { readModelsAsOf } from '../time-travel/reads';
import { asOfQuery } from '../time-travel/time-travel';
import { route } from './route';
import type { RouteContext } from './route-context';

/** An optional member: an explicit null is the same as leaving it out. */

const secret = z
  .union([z.string(), z.record(z.string(), z.string())])
  .describe('A token (Bearer), user:password (Basic), or an object of header names to values (Headers)');

const ruleFields = {
  url: z.string().min(1).describe('The URL a request is matched against'),
  url_type: z.literal('regex').optional().describe("'regex', or none: the url is matched as it is"),
  http_method: z.enum(proxyHttpMethods),
  resource: keySchema.describe('The resource type key a matched request maps to'),
  headers: z.record(z.string(), z.string()).optional(),
  action: z.string().min(1).optional(),
  priority: z.number().int().optional(),
};
const mappingRuleInput = z.strictObject(ruleFields);
const mappingRuleUpdateInput = z.strictObject({
  ...ruleFields,
  should_delete: z.boolean().optional().describe('true: removes the stored rule with this url and http_method'),
});

/** `auth_mechanism` is `name` (given, and not null). */
const mechanismIs = (name: string) => ({ required: ['auth_mechanism'], properties: { auth_mechanism: { const: name } } });
/** `auth_mechanism` is `name` and a secret is given (not null: a null member is absent). */
const givesBoth = (name: string) => ({
  required: ['auth_mechanism', 'secret'],
  properties: { auth_mechanism: { const: name }, secret: { not: { type: 'null' } } },
});
/** The secret's form for each mechanism, as the decider checks it (shared/domain/env/proxy-config-decisions.ts). */
const secretFormOf: Record<(typeof proxyAuthMechanisms)[number], object> = {
  Basic: { type: 'string', pattern: '^.+:.+$' },
  Headers: { type: 'object', minProperties: 1 },
  Bearer: { type: 'string', minLength: 1 },
};

export const proxyConfigCreateSchema = z
  .object({
    key: keySchema,
    name: z.string().min(1),
    secret,
    mapping_rules: z.array(mappingRuleInput).optional(),
    auth_mechanism: z.enum(proxyAuthMechanisms).optional().describe('Default Bearer'),
  })
  // The secret's form for its mechanism, which the decider checks (422 naming `secret`), as the document can say it.
  .meta({
    allOf: [
      {
        if: mechanismIs('Basic'),
        then: { properties: { secret: secretFormOf.Basic } },
        else: {
          if: mechanismIs('Headers'),
          then: { properties: { secret: secretFormOf.Headers } },
          else: { properties: { secret: secretFormOf.Bearer } },
        },
      },
    ],
  });

export const proxyConfigUpdateSchema = z
  .object({
    name: z.string().min(1).optional(),
    secret: secret.optional(),
    mapping_rules: z
      .array(mappingRuleUpdateInput)
      .optional()
      .describe(
        'Merged into the stored rules by url and http_method, in order: should_delete removes a rule, another replaces the rule it matches in place or is added at the end; rules it does not name stay',
      ),
    auth_mechanism: z.enum(proxyAuthMechanisms).optional(),
  })
  // A body that gives both a mechanism and a secret states the create's rule between them (422 naming `secret`); one
  // alone is checked against the stored other, a rule on the current state the document cannot state (400).
  .meta({
    allOf: proxyAuthMechanisms.map((mechanism) => ({
      if: givesBoth(mechanism),
      then: { properties: { secret: secretFormOf[mechanism] } },
    })),
  });

const rule = (r: z.infer<typeof mappingRuleInput>): MappingRule => ({
  url: r.url,
  urlType: r.url_type ?? null,
  httpMethod: r.http_method,
  resource: r.resource,
  headers: r.headers ?? {},
  action: r.action ?? null,
  priority: r.priority ?? null,
});

const listQuery = paginationSchema.extend(asOfQuery.shape);

/**
 * `/proxy_configs`: Permit's API proxy configurations, kept as objects (created,
 * read, updated, deleted, copied with the environment). This service proxies
 * no request: reads say so (`proxied: false`), docs/permit-compat.md too.
 * A secret is sealed here before its command is decided (no secret enters the
 * log) and stays sealed in the read model; it is opened only to be answered.
 */
export function proxyConfigRoutes(context: RouteContext): void {
  const { services } = context;
  const rm = services.readModels;
  const { secrets } = services;

  /** Permit's ProxyConfigRead: the stored document with its secret opened. */
  const answer = (doc: ProxyConfigDoc) => ({ ...present(doc), secret: secrets.open(doc.secret) });

  async function find(reads: ReadModels, envId: string, ref: string): Promise<ProxyConfigDoc> {
    const config = await reads.byKeyOrId(reads.proxyConfigs, envId, ref);
    if (!config) throw new NotFoundError(`Proxy config '${ref}' not found`);
    return config;
  }

  route(
    context,
    {
      method: 'get',
      path: '/proxy_configs',
      summary: 'List proxy configs (stored only: this service proxies nothing)',
      tag: 'Proxy configs',
      query: listQuery,
      response: proxyConfigListSchema,
    },
    async (req, res, input) => {
      const { page, per_page } = input.query();
      const reads = await readModelsAsOf(services, req, res);
      const docs = await reads.proxyConfigs.find({ environment_id: envOf(res).id }, { skip: (page - 1) * per_page, limit: per_page });
      res.json(docs.map(answer));
    },
  );

  route(
    context,
    {
      method: 'post',
      path: '/proxy_configs',
      summary: 'Create a proxy config (stored only: this service proxies nothing)',
      tag: 'Proxy configs',
      body: proxyConfigCreateSchema,
      response: proxyConfigSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const id = newId();
      await executeEnvCommand(services, req, res, envOf(res).id, {
        type: 'CreateProxyConfig',
        id,
        key: body.key,
        name: body.name,
        authMechanism: body.auth_mechanism ?? 'Bearer',
        secret: secrets.seal(body.secret),
        mappingRules: (body.mapping_rules ?? []).map(rule),
      });
      res.json(answer((await rm.proxyConfigs.get(id))!));
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/proxy_configs/{proxy_config_id}',
      summary: 'Get a proxy config',
      tag: 'Proxy configs',
      query: asOfQuery,
      response: proxyConfigSchema,
    },
    async (req, res) => {
      const reads = await readModelsAsOf(services, req, res);
      res.json(answer(await find(reads, envOf(res).id, req.params.proxy_config_id)));
    },
  );

  route(
    context,
    {
      method: 'patch',
      path: '/proxy_configs/{proxy_config_id}',
      summary: 'Update a proxy config (name, secret, auth_mechanism; mapping rules merged by url and http_method)',
      tag: 'Proxy configs',
      body: proxyConfigUpdateSchema,
      response: proxyConfigSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const env = envOf(res).id;
      await executeEnvCommand(services, req, res, env, {
        type: 'UpdateProxyConfig',
        config: req.params.proxy_config_id,
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.secret !== undefined ? { secret: secrets.seal(body.secret) } : {}),
        ...(body.auth_mechanism !== undefined ? { authMechanism: body.auth_mechanism } : {}),
        ...(body.mapping_rules !== undefined
          ? { mappingRules: body.mapping_rules.map((r) => ({ ...rule(r), shouldDelete: r.should_delete ?? false })) }
          : {}),
      });
      res.json(answer(await find(rm, env, req.params.proxy_config_id)));
    },
  );

  route(
    context,
    {
      method: 'delete',
      path: '/proxy_configs/{proxy_config_id}',
      summary: 'Delete a proxy config',
      tag: 'Proxy configs',
      status: 204,
    },
    async (req, res) => {
      await executeEnvCommand(services, req, res, envOf(res).id, { type: 'DeleteProxyConfig', config: req.params.proxy_config_id });
      res.status(204).end();
    },
  );
}
