import { checkTypes, parseConditions, type AttributePath } from './index';

const types: Record<string, string> = {
  'user.age': 'number',
  'user.email': 'string',
  'user.tags': 'array',
  'user.meta': 'json',
  'resource.owner': 'string',
};
const typeOf = (p: AttributePath) => types[`${p.subject}.${p.name}`];

function problems(json: unknown) {
  const parsed = parseConditions(json);
  if (!parsed.ok) throw new Error('unparsable');
  return checkTypes(parsed.condition, typeOf).map((p) => p.message);
}

describe('conditions checked against the attribute schemas', () => {
  it('accepts comparisons of the declared types, and attributes no schema declares', () => {
    expect(
      problems({
        allOf: [
          { 'user.age': { 'greater-than': 3 } },
          { 'user.tags': { array_contains: 'a' } },
          { 'user.unknown': { equals: 1 } },
          { 'user.meta': { equals: 'x' } },
        ],
      }),
    ).toEqual([]);
    expect(problems({ 'resource.owner': { equals: { ref: 'user.email' } } })).toEqual([]);
  });
  it('refuses an operator the declared type does not take', () => {
    expect(problems({ 'user.email': { 'greater-than': 3 } })).toEqual(['user.email is of type string; greater-than compares number']);
  });
  it('refuses a literal of the wrong kind', () => {
    expect(problems({ 'user.age': { equals: '18' } })).toEqual(['the value "18" is string; equals on user.age takes number']);
    expect(problems({ not: { 'user.tags': { array_subset: 'a' } } })).toEqual([
      'the value "a" is string; array_subset on user.tags takes array',
    ]);
  });
  it('refuses a reference to an attribute of the wrong type', () => {
    expect(problems({ 'resource.owner': { equals: { ref: 'user.age' } } })).toEqual([
      'user.age is number; equals on resource.owner takes string',
    ]);
  });
});
