import { parseAsOf, utcInputToIso, isoToUtcInput, asOfText } from './as-of';
import { attributesOf, diffAttributes, diffText, attributeSubject } from './attributes';
import { conditionText } from './conditions';
import { preferredOf } from './session';
import type { AuditEntry } from './api/types';

describe('as of', () => {
  it('takes a position or an ISO time with a zone, and nothing else', () => {
    expect(parseAsOf('42')).toBe(42);
    expect(parseAsOf('2026-05-01T09:14:03Z')).toBe('2026-05-01T09:14:03Z');
    expect(parseAsOf('2026-05-01T09:14:03+02:00')).toBe('2026-05-01T09:14:03+02:00');
    expect(parseAsOf('2026-05-01T09:14:03')).toBeNull();
    expect(parseAsOf('yesterday')).toBeNull();
    expect(parseAsOf('')).toBeNull();
  });
  it('reads a datetime-local value as UTC and back', () => {
    expect(utcInputToIso('2026-05-01T09:14')).toBe('2026-05-01T09:14:00Z');
    expect(utcInputToIso('2026-05-01T09:14:03')).toBe('2026-05-01T09:14:03Z');
    expect(utcInputToIso('')).toBeNull();
    expect(isoToUtcInput('2026-05-01T11:14:03+02:00')).toBe('2026-05-01T09:14:03');
    expect(asOfText(7)).toBe('position 7');
    expect(asOfText('2026-05-01T09:14:03Z')).toBe('2026-05-01 09:14:03Z');
  });
});

describe('attribute changes', () => {
  const entry = (type: string, data: Record<string, unknown>) => ({ type, data }) as unknown as AuditEntry;
  it('knows which updates change attributes, and where the object is read', () => {
    expect(attributeSubject(entry('UserUpdated', { key: 'carol' }))).toEqual({ kind: 'users', id: 'carol' });
    expect(attributeSubject(entry('ResourceInstanceUpdated', { resource: 'file', key: 'a' }))).toEqual({
      kind: 'resource_instances',
      id: 'file:a',
    });
    expect(attributeSubject(entry('RoleAssigned', { user: 'carol' }))).toBeNull();
  });
  it('compares as a rule reads them: a user’s built-in fields beside its attributes, unset sides named', () => {
    const before = attributesOf('users', { key: 'carol', email: null, attributes: { department: 'legal', level: 2 } });
    const after = attributesOf('users', { key: 'carol', email: 'c@x', attributes: { department: 'finance', level: 2 } });
    const diffs = diffAttributes(before, after);
    expect(diffs.map(diffText)).toEqual(['department: legal → finance', 'email: (unset) → c@x']);
    expect(diffAttributes(null, { a: [1] }).map(diffText)).toEqual(['a: (unset) → [1]']);
  });
});

describe('conditions in words', () => {
  it('reads allOf, anyOf, not and leaves; keeps what it does not know as JSON', () => {
    expect(conditionText({ allOf: [{ 'user.department': { equals: 'legal' } }] })).toBe('user.department equals "legal"');
    expect(
      conditionText({
        allOf: [{ 'user.level': { 'greater-than': 2 } }, { anyOf: [{ 'user.a': { equals: 1 } }, { 'user.b': { equals: 2 } }] }],
      }),
    ).toBe('user.level greater-than 2 and (user.a equals 1 or user.b equals 2)');
    expect(conditionText({ not: { 'resource.secret': { equals: true } } })).toBe('not (resource.secret equals true)');
    expect(conditionText({})).toBe('always');
    expect(conditionText([1])).toBe('[1]');
  });
});

describe('which environment sign-in opens', () => {
  const envs = [
    { id: '1', key: 'staging' },
    { id: '2', key: 'production' },
    { id: '3', key: 'copy' },
  ];
  it('the last one used if it is still there, else production, else the first', () => {
    expect(preferredOf(envs, '3', 'production')?.key).toBe('copy');
    expect(preferredOf(envs, 'gone', 'production')?.key).toBe('production');
    expect(preferredOf(envs.slice(2), null, 'production')?.key).toBe('copy');
    expect(preferredOf([], null, 'production')).toBeUndefined();
  });
});
