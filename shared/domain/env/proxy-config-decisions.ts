import { DuplicateEntityError, InvalidRequestError, NotFoundError, ValidationError } from '../../errors';
import type { EnvEvent, MappingRule } from '../../events';
import type { EnvCommand } from './commands';
import type { EnvState, ProxyConfigState } from './state';

type Cmd<T extends EnvCommand['type']> = Extract<EnvCommand, { type: T }>;

/**
 * Proxy configs (Permit's API proxy, docs/permit-compat.md): stored, read back
 * and copied, never acted on. What is checked is what Permit's API checks of
 * them: the secret's form for the auth mechanism, and that no two mapping rules
 * share a url and http_method (a rule's identity, by which an update merges).
 * The secret arrives sealed (shared/secrets/): its form is checked, its value
 * never seen here.
 */

export function findProxyConfig(s: EnvState, ref: string): ProxyConfigState {
  const config = s.proxyConfigs.get(ref) ?? s.proxyConfigs.get(s.ids.get(ref) ?? '');
  if (!config) throw new NotFoundError(`Proxy config '${ref}' not found`, { proxy_config: ref });
  return config;
}

/**
 * The secret's form for its mechanism: a non-empty token (Bearer), `user:password` (Basic), header
 * values (Headers). A body that gives both and breaks it contradicts itself: 422 naming `secret`.
 * An update that gives one, which does not fit the stored other, breaks a rule on the current
 * state: 400 INVALID_INPUT, as every such rule.
 */
function checkSecret(
  mechanism: ProxyConfigState['authMechanism'],
  { form }: ProxyConfigState['secret'],
  against: 'the body' | 'the stored config' = 'the body',
): void {
  const isObject = form === 'headers' || form === 'no headers';
  const problem =
    mechanism === 'Headers'
      ? !isObject
        ? 'a Headers secret is an object of header names to values'
        : form === 'no headers'
          ? 'a Headers secret names at least one header'
          : null
      : isObject
        ? `a ${mechanism} secret is a string`
        : mechanism === 'Basic' && form !== 'user:password'
          ? "a Basic secret has the form 'user:password'"
          : form === 'empty'
            ? 'a Bearer secret is a non-empty token'
            : null;
  if (!problem) return;
  if (against === 'the stored config') {
    throw new InvalidRequestError(`${problem} (auth_mechanism '${mechanism}', with the stored config's secret or mechanism)`, {
      field: 'secret',
    });
  }
  throw new ValidationError([{ loc: ['body', 'secret'], msg: `${problem} (auth_mechanism '${mechanism}')`, type: 'value_error' }]);
}

const sameRule = (a: Pick<MappingRule, 'url' | 'httpMethod'>, b: Pick<MappingRule, 'url' | 'httpMethod'>) =>
  a.url === b.url && a.httpMethod === b.httpMethod;

function checkDistinctRules(rules: MappingRule[]): void {
  const detail = rules.flatMap((rule, i) => {
    const first = rules.findIndex((other) => sameRule(other, rule));
    return first < i
      ? [
          {
            loc: ['body', 'mapping_rules', i],
            msg: `has the same url and http_method as mapping_rules[${first}] (a rule's identity)`,
            type: 'value_error',
          },
        ]
      : [];
  });
  if (detail.length > 0) throw new ValidationError(detail);
}

export function createProxyConfig(c: Cmd<'CreateProxyConfig'>, s: EnvState): EnvEvent[] {
  if (s.proxyConfigs.has(c.key)) throw new DuplicateEntityError(`Proxy config '${c.key}' already exists`);
  checkSecret(c.authMechanism, c.secret);
  checkDistinctRules(c.mappingRules);
  const { id, key, name, authMechanism, secret, mappingRules } = c;
  return [{ type: 'ProxyConfigCreated', data: { id, key, name, authMechanism, secret, mappingRules } }];
}

/** Permit's merge of an update's mapping rules into the stored ones, in the order given (see EnvCommand). */
function mergeRules(stored: MappingRule[], changes: Array<MappingRule & { shouldDelete: boolean }>): MappingRule[] {
  const rules = stored.map((rule) => ({ ...rule }));
  for (const { shouldDelete, ...rule } of changes) {
    const at = rules.findIndex((other) => sameRule(other, rule));
    if (shouldDelete) {
      if (at >= 0) rules.splice(at, 1);
    } else if (at >= 0) rules[at] = rule;
    else rules.push(rule);
  }
  return rules;
}

export function updateProxyConfig(c: Cmd<'UpdateProxyConfig'>, s: EnvState): EnvEvent[] {
  const config = findProxyConfig(s, c.config);
  const authMechanism = c.authMechanism ?? config.authMechanism;
  const secret = c.secret ?? config.secret;
  if (c.authMechanism !== undefined || c.secret !== undefined) {
    checkSecret(authMechanism, secret, c.authMechanism !== undefined && c.secret !== undefined ? 'the body' : 'the stored config');
  }
  const mappingRules = c.mappingRules === undefined ? config.mappingRules : mergeRules(config.mappingRules, c.mappingRules);
  const data = { id: config.id, key: config.key, name: c.name ?? config.name, authMechanism, secret, mappingRules };
  return [{ type: 'ProxyConfigUpdated', data }];
}

export function deleteProxyConfig(c: Cmd<'DeleteProxyConfig'>, s: EnvState): EnvEvent[] {
  const { id, key } = findProxyConfig(s, c.config);
  return [{ type: 'ProxyConfigDeleted', data: { id, key } }];
}
