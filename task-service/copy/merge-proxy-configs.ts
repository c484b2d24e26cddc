import type { EnvCommand } from '../../shared/domain/env/commands';
import type { ProxyConfigState } from '../../shared/domain/env/state';
import { sameSealedSecret } from '../../shared/secrets/sealed-secret';
import type { EnvSnapshot } from './env-snapshot';

/**
 * Proxy configs in a copy into an existing environment (the policy part of
 * merge-plan.ts): one with the same key and another definition is a conflict;
 * `overwrite` replaces it in place (its id stays), missing ones are created.
 */

type Rule = ProxyConfigState['mappingRules'][number];

const sameStrings = (a: Record<string, string>, b: Record<string, string>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);

const sameRule = (a: Rule, b: Rule) =>
  a.url === b.url &&
  a.urlType === b.urlType &&
  a.httpMethod === b.httpMethod &&
  a.resource === b.resource &&
  a.action === b.action &&
  a.priority === b.priority &&
  sameStrings(a.headers, b.headers);

const sameRules = (a: Rule[], b: Rule[]) => a.length === b.length && a.every((rule, i) => sameRule(rule, b[i]!));

/**
 * Secrets are compared sealed, by their keyed MAC (equal secrets have equal MACs under one key,
 * whatever their random nonces): the copy never opens a secret and needs no key. Two secrets
 * sealed under different keys count as different (a conflict, which `overwrite` settles).
 */
const sameConfig = (a: ProxyConfigState, b: ProxyConfigState) =>
  a.name === b.name &&
  a.authMechanism === b.authMechanism &&
  sameSealedSecret(a.secret, b.secret) &&
  sameRules(a.mappingRules, b.mappingRules);

/** Keys of the proxy configs on both sides whose definitions differ. */
export function proxyConfigConflicts(source: EnvSnapshot, target: EnvSnapshot): string[] {
  return [...source.proxyConfigs]
    .filter(([key, config]) => {
      const other = target.proxyConfigs.get(key);
      return other !== undefined && !sameConfig(config, other);
    })
    .map(([key]) => key);
}

export function mergeProxyConfigs(
  source: EnvSnapshot,
  target: EnvSnapshot,
  run: (command: EnvCommand) => void,
  newId: (sourceId: string) => string,
  conflicting: ReadonlySet<string>,
): void {
  for (const [key, config] of source.proxyConfigs) {
    const { name, authMechanism, secret, mappingRules } = config;
    if (!target.proxyConfigs.has(key)) {
      run({ type: 'CreateProxyConfig', id: newId(config.id), key, name, authMechanism, secret, mappingRules });
      continue;
    }
    if (!conflicting.has(key)) continue;
    // The update's rules merge into the target's: delete each of them, then add the source's in order.
    const deletions = target.proxyConfigs.get(key)!.mappingRules.map((r) => ({ ...r, shouldDelete: true }));
    const additions = mappingRules.map((r) => ({ ...r, shouldDelete: false }));
    run({ type: 'UpdateProxyConfig', config: key, name, authMechanism, secret, mappingRules: [...deletions, ...additions] });
  }
}
