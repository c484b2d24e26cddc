import { z } from 'zod';
import { authOf, keyEnvironment } from '../../http/auth';
import { boundedJson } from '../../http/validation';
import { route } from '../route';
import type { RouteContext } from '../route-context';

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

/** The PDP's AuthorizationResult as `/allowed_url` answers it when no mapping rule matches. */
const allowedUrlAnswerSchema = z.object({
  allow: z.boolean(),
  result: z.boolean(),
  query: z.record(z.string(), z.unknown()),
  debug: z.object({ reason: z.string(), mapping_rules: z.array(z.unknown()), note: z.string().optional() }),
});

/** The PDP's own words for a URL no mapping rule matches. */
export const NO_MAPPING_RULE = 'Matched mapping rule not found for the requested URL and HTTP method';

/**
 * `POST /allowed_url` (the PDP's URL check, `permit pdp check-url`): Permit's PDP finds the mapping
 * rule whose method and URL template match, and checks its action on its resource type with the
 * URL's `{placeholders}` as resource attributes. Mapping rules come from proxy configs'
 * `mapping_rules` (`/v2/facts/{proj}/{env}/proxy_configs`), which this service does not serve (they
 * hold the secrets the proxy injects, and no secret enters the log): an environment here has none,
 * so every URL is answered as the PDP answers one no rule matches, denied, with its reason.
 */
export function allowedUrlRoutes(context: RouteContext): void {
  const { services } = context;
  route(
    context,
    {
      method: 'post',
      path: '/allowed_url',
      tag: 'Permission checks',
      body: allowedUrlSchema,
      response: allowedUrlAnswerSchema,
      readOnly: true,
      summary: 'Checks a URL by its mapping rule (the PDP’s URL check); no environment here has mapping rules, so it is denied',
    },
    async (_req, res, input) => {
      const query = input.body();
      await keyEnvironment(services.readModels, authOf(res));
      res.json({
        allow: false,
        result: false,
        query,
        debug: {
          reason: NO_MAPPING_RULE,
          mapping_rules: [],
          note: 'Mapping rules come from proxy configs, which this service does not serve (docs/permit-compat.md)',
        },
      });
    },
  );
}
