import { z } from 'zod';
import type { GrantQueries } from '../../grant-queries/grant-queries';
import type { CheckRequest } from '../../grant-queries/types';
import { authOf, keyEnvironment } from '../../http/auth';
import { boundedJson } from '../../http/validation';
import { route } from '../route';
import type { RouteContext } from '../route-context';
import { abacInputsOf } from './abac-inputs';
import { matchMappingRule } from './mapping-rules';
import { recordChecks, sourceOf } from './decision-entries';
import { atOnePosition } from './positions';

/** The PDP's UrlAuthorizationQuery: who asks for which URL with which method, in which tenant. */
export const allowedUrlSchema = z.object({
  user: z.strictObject({
    key: z.string().min(1),
    first_name: z.string().nullish(),
    last_name: z.string().nullish(),
    email: z.string().nullish(),
    attributes: boundedJson.nullish(),
  }),
  http_method: z.string().min(1),
  url: z.url({ protocol: /^https?$/ }),
  tenant: z.string().min(1),
  context: boundedJson.nullish(),
  sdk: z.string().nullish(),
});

/** The PDP's AuthorizationResult as `/allowed_url` answers it. */
const allowedUrlAnswerSchema = z.object({
  allow: z.boolean(),
  result: z.boolean(),
  query: z.record(z.string(), z.unknown()),
  debug: z.object({
    reason: z.string().optional(),
    mapping_rules: z.array(z.unknown()).optional(),
    mapping_rule: z.record(z.string(), z.unknown()).optional(),
  }),
});

/** The PDP's own words for a URL no mapping rule matches. */
export const NO_MAPPING_RULE = 'Matched mapping rule not found for the requested URL and HTTP method';

/**
 * `POST /allowed_url` (the PDP's URL check, `permit pdp check-url`), as Permit's PDP answers it:
 * the mapping rule of the environment's proxy configs that matches the request's method and URL
 * (mapping-rules.ts) names a resource type and an action, and the answer is the check `/allowed`
 * makes of that action on that type in the request's tenant, with the URL's placeholder values as
 * resource attributes (and the user's attributes and the context, for set rules). No matching
 * rule: denied, with the PDP's reason and the rules it looked at.
 */
export function allowedUrlRoutes(context: RouteContext, queries: GrantQueries): void {
  const { services } = context;
  const rm = services.readModels;
  const decided = services.metrics.checks.decisions('/allowed_url');
  route(
    context,
    {
      method: 'post',
      path: '/allowed_url',
      tag: 'Permission checks',
      body: allowedUrlSchema,
      response: allowedUrlAnswerSchema,
      readOnly: true,
      summary: 'Checks a URL by the mapping rule of the environment’s proxy configs it matches (the PDP’s URL check)',
    },
    async (req, res, input) => {
      const query = input.body();
      const env = await keyEnvironment(rm, authOf(res));
      // The user's attributes and the context, as /allowed takes them (422 when not objects), whatever matches.
      const sent = abacInputsOf(req.body, ['body']);
      const answer = await atOnePosition(services, res, async () => {
        // Rules in a stable order (proxy config key, then rule order): the first of equal priority wins.
        const configs = await rm.proxyConfigs.find({ environment_id: env.id }, { sortBy: 'key' });
        const rules = configs.flatMap((c) => c.mapping_rules);
        const matched = matchMappingRule(rules, query.http_method, query.url);
        if (!matched) return { allow: false, result: false, query, debug: { reason: NO_MAPPING_RULE, mapping_rules: rules } };
        const resource = { type: matched.rule.resource, tenant: query.tenant, attributes: matched.attributes };
        const placeholders = Object.keys(matched.attributes).length > 0 ? { resource: matched.attributes } : {};
        const abac = sent || placeholders.resource ? { ...sent, ...placeholders } : undefined;
        const check: CheckRequest = {
          user: query.user.key,
          action: matched.action,
          resource: { type: resource.type, key: null, tenant: query.tenant },
          ...(abac ? { abac } : {}),
        };
        const { allow } = await queries.check(env.id, check);
        const asked = { user: query.user, action: matched.action, resource, context: query.context ?? {}, sdk: query.sdk };
        return { allow, result: allow, query: asked, debug: { mapping_rule: { ...matched.rule } }, check };
      });
      if (answer.allow) decided.allow++;
      else decided.deny++;
      // A URL no rule maps is no question of the model: nothing to re-derive, nothing logged.
      const { check, ...answered } = answer;
      if (check) recordChecks(services.decisionLog, sourceOf(res, '/allowed_url', env), [{ question: check, allow: answer.allow }]);
      res.json(answered);
    },
  );
}
