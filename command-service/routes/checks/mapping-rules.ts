import type { MappingRuleDoc } from '../../../shared/read-models/read-models';

/** A mapping rule that matched a request, and what it read from the URL. */
export interface MappingRuleMatch {
  rule: MappingRuleDoc;
  /** The action to check: the rule's, or its HTTP method. */
  action: string;
  /** `{placeholder}` values (template rules) or named groups (regex rules), as resource attributes. */
  attributes: Record<string, string>;
}

const isPlaceholder = (part: string) => part.startsWith('{') && part.endsWith('}');

/** `url` cut at its first `?`: the part before, and the query string after (undefined without a `?`). */
function splitQuery(url: string): [string, string | undefined] {
  const at = url.indexOf('?');
  return at < 0 ? [url, undefined] : [url.slice(0, at), url.slice(at + 1)];
}

/** A query string's parameters, the last value of a repeated one winning (as the PDP reads them). */
function queryParams(query: string): Map<string, string> {
  return new Map(new URLSearchParams(query));
}

/**
 * A template rule against a request URL, as Permit's PDP compares them: the parts before `?`, cut
 * at every `/` (scheme and host included), have the same number of segments, each equal or a
 * `{placeholder}` (any value, which becomes an attribute); each parameter of the rule's query
 * string is in the request's, equal or a placeholder; the request may have more. A rule with a
 * query string does not match a request without one.
 */
function matchTemplate(ruleUrl: string, url: string): Record<string, string> | undefined {
  const [rulePath, ruleQuery] = splitQuery(ruleUrl);
  const [path, query] = splitQuery(url);
  const ruleParts = rulePath.split('/');
  const parts = path.split('/');
  if (ruleParts.length !== parts.length) return undefined;
  const attributes: Record<string, string> = {};
  for (const [i, part] of ruleParts.entries()) {
    if (isPlaceholder(part)) attributes[part.slice(1, -1)] = parts[i]!;
    else if (part !== parts[i]) return undefined;
  }
  if (ruleQuery === undefined) return attributes;
  if (query === undefined) return undefined;
  const sent = queryParams(query);
  for (const [key, value] of queryParams(ruleQuery)) {
    const given = sent.get(key);
    if (given === undefined) return undefined;
    if (isPlaceholder(value)) attributes[value.slice(1, -1)] = given;
    else if (value !== given) return undefined;
  }
  return attributes;
}

/**
 * A regex rule against a request URL: the pattern matches from the URL's start (Python's
 * `re.match`, as the PDP runs it); its named groups, Python's `(?P<name>…)` spelling too, become
 * attributes. A pattern that does not compile matches nothing, as in the PDP.
 */
function matchRegex(pattern: string, url: string): Record<string, string> | undefined {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern.replaceAll('(?P<', '(?<'), 'y');
  } catch {
    return undefined;
  }
  const found = regex.exec(url);
  if (!found) return undefined;
  const attributes: Record<string, string> = {};
  for (const [name, value] of Object.entries(found.groups ?? {})) if (value !== undefined) attributes[name] = value;
  return attributes;
}

/**
 * The mapping rule Permit's PDP picks for a request: among the rules whose HTTP method is the
 * request's (any case) and whose URL matches (as a template or, `url_type: 'regex'`, a pattern),
 * the one of highest `priority` (none counts as 0); of equal priority, the first in `rules`' order.
 * Undefined when none matches.
 */
export function matchMappingRule(rules: readonly MappingRuleDoc[], httpMethod: string, url: string): MappingRuleMatch | undefined {
  const method = httpMethod.toLowerCase();
  let best: MappingRuleMatch | undefined;
  for (const rule of rules) {
    if (rule.http_method.toLowerCase() !== method) continue;
    if (best && (rule.priority ?? 0) <= (best.rule.priority ?? 0)) continue;
    const attributes = rule.url_type === 'regex' ? matchRegex(rule.url, url) : matchTemplate(rule.url, url);
    if (attributes) best = { rule, action: rule.action ?? rule.http_method, attributes };
  }
  return best;
}
