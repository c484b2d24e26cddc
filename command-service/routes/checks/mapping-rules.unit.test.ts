import type { MappingRuleDoc } from '../../../shared/read-models/read-models';
import { matchMappingRule } from './mapping-rules';

const rule = (over: Partial<MappingRuleDoc>): MappingRuleDoc => ({
  url: 'https://api.example.com/documents/{id}',
  url_type: null,
  http_method: 'get',
  resource: 'document',
  headers: {},
  action: null,
  priority: null,
  ...over,
});

describe('matchMappingRule (the PDP’s choice of mapping rule for a URL)', () => {
  it('matches a template segment by segment; a placeholder takes any value, which becomes an attribute', () => {
    const docs = rule({ url: 'https://api.example.com/orgs/{org}/documents/{id}' });
    expect(matchMappingRule([docs], 'GET', 'https://api.example.com/orgs/acme/documents/42')).toEqual({
      rule: docs,
      action: 'get',
      attributes: { org: 'acme', id: '42' },
    });
    // Another host, scheme, segment or segment count: no match.
    for (const url of [
      'https://other.example.com/orgs/acme/documents/42',
      'http://api.example.com/orgs/acme/documents/42',
      'https://api.example.com/orgs/acme/files/42',
      'https://api.example.com/orgs/acme/documents/42/raw',
      'https://api.example.com/orgs/acme/documents',
    ])
      expect(matchMappingRule([docs], 'GET', url)).toBeUndefined();
  });

  it('compares the method in any case, and the action is the rule’s or its method', () => {
    expect(matchMappingRule([rule({})], 'post', 'https://api.example.com/documents/1')).toBeUndefined();
    expect(matchMappingRule([rule({})], 'Get', 'https://api.example.com/documents/1')?.action).toBe('get');
    expect(matchMappingRule([rule({ action: 'read' })], 'GET', 'https://api.example.com/documents/1')?.action).toBe('read');
  });

  it('reads the query string: the request may send more, the rule’s parameters must be there, placeholders become attributes', () => {
    const plain = rule({});
    // A rule without a query string matches a request with one; the placeholder is the path segment alone.
    expect(matchMappingRule([plain], 'GET', 'https://api.example.com/documents/42?view=full')?.attributes).toEqual({ id: '42' });
    const queried = rule({ url: 'https://api.example.com/documents/{id}?view=full&owner={owner}' });
    expect(matchMappingRule([queried], 'GET', 'https://api.example.com/documents/42?owner=ann+b&view=full&x=1')?.attributes).toEqual({
      id: '42',
      owner: 'ann b',
    });
    for (const url of [
      'https://api.example.com/documents/42',
      'https://api.example.com/documents/42?view=full',
      'https://api.example.com/documents/42?view=brief&owner=ann',
    ])
      expect(matchMappingRule([queried], 'GET', url)).toBeUndefined();
  });

  it('matches a regex rule from the URL’s start; named groups (Python’s spelling too) become attributes; a bad pattern matches nothing', () => {
    const regex = rule({ url: String.raw`https://api\.example\.com/documents/(?P<id>\d+)(/(?<part>\w+))?`, url_type: 'regex' });
    expect(matchMappingRule([regex], 'GET', 'https://api.example.com/documents/42/raw?x=1')?.attributes).toEqual({ id: '42', part: 'raw' });
    expect(matchMappingRule([regex], 'GET', 'https://api.example.com/documents/42')?.attributes).toEqual({ id: '42' });
    expect(matchMappingRule([regex], 'GET', 'https://api.example.com/documents/abc')).toBeUndefined();
    expect(matchMappingRule([regex], 'GET', 'x https://api.example.com/documents/42')).toBeUndefined();
    expect(matchMappingRule([rule({ url: '(', url_type: 'regex' })], 'GET', 'https://api.example.com/documents/42')).toBeUndefined();
  });

  it('takes the matching rule of highest priority (none is 0); of equal priority, the first', () => {
    const url = 'https://api.example.com/documents/42';
    const first = rule({ resource: 'first' });
    const second = rule({ url: 'https://api.example.com/documents/{doc}', resource: 'second' });
    const high = rule({ url: String.raw`https://api\.example\.com/.*`, url_type: 'regex', resource: 'high', priority: 5 });
    const low = rule({ resource: 'low', priority: -1 });
    const unmatched = rule({ url: 'https://api.example.com/files/{id}', resource: 'unmatched', priority: 9 });
    expect(matchMappingRule([low, first, second], 'GET', url)?.rule.resource).toBe('first');
    expect(matchMappingRule([first, second, unmatched, high], 'GET', url)?.rule.resource).toBe('high');
    expect(matchMappingRule([low], 'GET', url)?.rule.resource).toBe('low');
    expect(matchMappingRule([], 'GET', url)).toBeUndefined();
  });
});
