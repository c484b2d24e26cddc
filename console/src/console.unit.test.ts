import { errorMessage, queryString } from './api/client';
import { SseParser } from './api/sse';
import { parseRoute } from './context';
import { layoutModel, ranks, type ModelType } from './model/layout';
import { dataSummary, filterQuery, questionOf } from './queries';
import { loadSession, saveSession, sessionFor } from './session';

const type = (key: string, relations: Array<{ key: string; subject: string }> = [], roles: ModelType['roles'] = []): ModelType => ({
  key,
  name: key,
  actions: ['read'],
  roles,
  relations,
});
const role = (key: string, derivations: ModelType['roles'][number]['derivations'] = []) => ({
  key,
  permissions: ['read'],
  extends: [],
  derivations,
});

describe('model layout', () => {
  it('ranks a relation subject above its object, chains included', () => {
    const r = ranks([
      type('file', [{ key: 'parent', subject: 'folder' }]),
      type('folder', [{ key: 'owner', subject: 'account' }]),
      type('account'),
    ]);
    expect(Object.fromEntries(r)).toEqual({ account: 0, folder: 1, file: 2 });
  });

  it('cuts cycles and ignores relations to unknown types', () => {
    const r = ranks([
      type('a', [{ key: 'x', subject: 'b' }]),
      type('b', [
        { key: 'y', subject: 'a' },
        { key: 'z', subject: 'ghost' },
      ]),
    ]);
    expect([...r.values()].every((v) => v >= 0)).toBe(true);
    expect(r.size).toBe(2);
  });

  it("draws the seed's folder/file example: boxes in two ranks, the parent relation, the editor derivation between role rows", () => {
    const layout = layoutModel([
      type(
        'file',
        [{ key: 'parent', subject: 'folder' }],
        [role('editor', [{ role: 'editor', on_resource: 'folder', linked_by_relation: 'parent' }]), role('viewer')],
      ),
      type('folder', [], [role('editor'), role('viewer')]),
    ]);
    const folder = layout.boxes.find((b) => b.type === 'folder')!;
    const file = layout.boxes.find((b) => b.type === 'file')!;
    expect(folder.y).toBeLessThan(file.y);
    expect(layout.relations).toEqual([expect.objectContaining({ key: 'parent', from: 'folder', to: 'file' })]);
    expect(layout.derivations).toEqual([
      expect.objectContaining({
        from: { type: 'folder', role: 'editor' },
        to: { type: 'file', role: 'editor' },
        relation: 'parent',
        dangling: false,
      }),
    ]);
    // The edge starts at the folder's editor row and ends at the file's.
    expect(layout.derivations[0]!.path).toMatch(new RegExp(`^M ${folder.x + folder.width} ${folder.rows.editor} `));
    expect(layout.derivations[0]!.path.endsWith(` ${file.rows.editor}`)).toBe(true);
    expect(layout.width).toBeGreaterThan(file.x + file.width);
    expect(layout.height).toBeGreaterThan(file.y + file.height);
  });

  it('marks a rule naming a missing role as dangling and keeps types of one rank apart', () => {
    const layout = layoutModel([type('a', [], [role('r', [{ role: 'gone', on_resource: 'b', linked_by_relation: 'x' }])]), type('b')]);
    expect(layout.derivations[0]!.dangling).toBe(true);
    const [a, b] = layout.boxes;
    expect(a!.y).toBe(b!.y);
    expect(Math.abs(a!.x - b!.x)).toBeGreaterThanOrEqual(a!.width);
  });
});

describe('server-sent events parser', () => {
  it('parses messages split anywhere, with ids, event names, comments and CRLF', () => {
    const parser = new SseParser();
    const text =
      ': audit log from position 3\r\n\r\nid: 4\r\ndata: {"a":1}\r\n\r\nevent: checkpoint\nid: 9\ndata: {"head_position":9}\n\ndata: x\ndata: y\n\n';
    const messages = [];
    for (let i = 0; i < text.length; i += 3) messages.push(...parser.push(text.slice(i, i + 3)));
    expect(messages).toEqual([
      { event: 'message', id: '4', data: '{"a":1}' },
      { event: 'checkpoint', id: '9', data: '{"head_position":9}' },
      { event: 'message', id: '9', data: 'x\ny' },
    ]);
    expect(parser.lastEventId).toBe('9');
  });

  it('keeps an unfinished message for the next chunk', () => {
    const parser = new SseParser();
    expect(parser.push('id: 1\ndata: par')).toEqual([]);
    expect(parser.push('tial\n\n')).toEqual([{ event: 'message', id: '1', data: 'partial' }]);
  });
});

describe('requests', () => {
  it('writes queries with repeated parameters and without empty values', () => {
    expect(queryString({ type: ['RoleAssigned', 'RoleUnassigned'], user: 'alice', tenant: '', x: undefined, page: 2 })).toBe(
      '?type=RoleAssigned&type=RoleUnassigned&user=alice&page=2',
    );
    expect(queryString({})).toBe('');
  });

  it("reads the API's error bodies", () => {
    expect(errorMessage(404, { error_code: 'NOT_FOUND', message: 'no such role' })).toEqual({ code: 'NOT_FOUND', message: 'no such role' });
    expect(errorMessage(422, { detail: [{ loc: ['body', 'user'], msg: 'Required' }] }).message).toBe('body.user: Required');
    expect(errorMessage(500, 'oops')).toEqual({ code: '500', message: 'HTTP 500' });
  });

  it('turns the check form into a check and the timeline filters into a query', () => {
    expect(questionOf(' alice ', 'read', 'file:readme', '')).toEqual({
      user: 'alice',
      action: 'read',
      resource: { type: 'file', key: 'readme' },
    });
    expect(questionOf('alice', 'read', 'file', 'acme')).toEqual({
      user: 'alice',
      action: 'read',
      resource: { type: 'file', tenant: 'acme' },
    });
    expect(questionOf('', 'read', 'file', '')).toBeNull();
    expect(filterQuery({ type: 'RoleAssigned, RoleUnassigned', user: ' alice ', role: '' })).toEqual({
      type: ['RoleAssigned', 'RoleUnassigned'],
      user: 'alice',
    });
  });

  it("summarises an event's data without its ids", () => {
    expect(
      dataSummary({ id: 'x', subject: 'folder:docs', relation: 'parent', object: 'file:readme', tenant_id: 'y', attributes: {} }),
    ).toBe('subject=folder:docs relation=parent object=file:readme');
    expect(dataSummary({ permissions: ['read', 'write'], email: null })).toBe('permissions=read,write');
  });

  it('parses hash routes', () => {
    expect(parseRoute('#/check?user=alice&as_of=12').page).toBe('check');
    expect(parseRoute('#/check?user=alice&as_of=12').params.get('as_of')).toBe('12');
    expect(parseRoute('').page).toBe('model');
  });
});

describe('session', () => {
  const storage = (): Storage => {
    const map = new Map<string, string>();
    return {
      getItem: (k) => map.get(k) ?? null,
      setItem: (k, v) => void map.set(k, v),
      removeItem: (k) => void map.delete(k),
      clear: () => map.clear(),
      key: () => null,
      get length() {
        return map.size;
      },
    };
  };

  it('fixes the environment of an environment key and checks with it; an organisation key chooses', () => {
    const env = sessionFor('k1', { organization_id: 'o', project_id: 'p', environment_id: 'e' });
    expect(env).toMatchObject({ project: 'p', env: 'e', checkKeys: { e: 'k1' } });
    const org = sessionFor('k2', { organization_id: 'o' });
    expect(org).toMatchObject({ project: null, env: null, checkKeys: {} });
  });

  it('round-trips through the storage and ignores what it cannot read', () => {
    const s = storage();
    const session = sessionFor('k', { organization_id: 'o' });
    saveSession(session, s);
    expect(loadSession(s)).toEqual(session);
    s.setItem('rebac-console.session', '{not json');
    expect(loadSession(s)).toBeNull();
  });
});
