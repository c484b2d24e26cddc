import type { EnvEvent, EnvEventOf, MappingRule } from '../../shared/events';
import type { MappingRuleDoc, ProxyConfigDoc, ReadModels } from '../../shared/read-models/read-models';
import type { CreatedFields } from '../../shared/read-models/projection';

/** What a proxy config handler writes with (the schema projection's scope). */
interface ProxyConfigScope {
  rm: ReadModels;
  at: string;
  common: CreatedFields;
}

type Handler<T extends EnvEvent['type']> = (scope: ProxyConfigScope, event: EnvEventOf<T>) => Promise<void>;

const ruleDoc = (r: MappingRule): MappingRuleDoc => ({
  url: r.url,
  url_type: r.urlType,
  http_method: r.httpMethod,
  resource: r.resource,
  headers: { ...r.headers },
  action: r.action,
  priority: r.priority,
});

type Definition = EnvEventOf<'ProxyConfigCreated'>['data'];
const definition = (d: Definition) => ({
  key: d.key,
  name: d.name,
  auth_mechanism: d.authMechanism,
  secret: d.secret,
  mapping_rules: d.mappingRules.map(ruleDoc),
  proxied: false as const,
});

/** Proxy configs as Permit reads them (ProxyConfigRead), marked `proxied: false`: nothing is proxied here. */
export const proxyConfigProjectionHandlers: {
  ProxyConfigCreated: Handler<'ProxyConfigCreated'>;
  ProxyConfigUpdated: Handler<'ProxyConfigUpdated'>;
  ProxyConfigDeleted: Handler<'ProxyConfigDeleted'>;
} = {
  async ProxyConfigCreated({ rm, common }, { data: d }) {
    const doc: ProxyConfigDoc = { id: d.id, ...definition(d), ...common };
    await rm.proxyConfigs.put(doc);
  },
  async ProxyConfigUpdated({ rm, at }, { data: d }) {
    const doc = await rm.proxyConfigs.get(d.id);
    if (!doc) return;
    await rm.proxyConfigs.put({ ...doc, ...definition(d), updated_at: at });
  },
  async ProxyConfigDeleted({ rm }, { data: d }) {
    await rm.proxyConfigs.delete(d.id);
  },
};
