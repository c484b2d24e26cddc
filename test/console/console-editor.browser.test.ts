import type { Locator, Page } from 'playwright-core';
import { okBody as ok, startConsoleBrowser, type ConsoleBrowser } from '../support/console-browser';
import { FACTS, SCHEMA, type ApiClient } from '../support/embedded-server';

/**
 * The policy editor in chromium, on an empty environment: a model built
 * through the editor only (types, roles, the matrix, `extends`, a relation, a
 * derivation, user attributes, condition sets and a set rule), then checked
 * through the API: the model holds what was edited and checks answer as it
 * implies. A refused edit shows the API's own message and changes nothing,
 * and an edit's reason is the audit log's `audit_metadata`.
 */
jest.setTimeout(180_000);

const LOG = '/v2/events/default/production';

describe('the policy editor, in chromium', () => {
  let browser: ConsoleBrowser;
  let admin: ApiClient;
  let env: ApiClient;
  let page: Page;
  const allowed = async (user: string, action: string, resource: string) =>
    (await ok<{ allow: boolean }>(env.post('/allowed', { user, action, resource }))).allow;
  const head = async () => (await ok<{ head_position: number }>(admin.get(LOG))).head_position;

  /** Opens the preview of whatever `review` proposes, checks what it shows, applies it with the reason. */
  const applyWith = async (review: () => Promise<void>, reason = '', expectCall?: string): Promise<Locator> => {
    await review();
    const preview = page.locator('[data-testid=change-preview]');
    await preview.waitFor();
    if (expectCall) await expect(preview.locator('[data-testid=preview-calls]').textContent()).resolves.toContain(expectCall);
    if (reason) await preview.locator('input[name=reason]').fill(reason);
    await preview.locator('button[name=apply-edit]').click();
    return preview;
  };
  const applied = async (review: () => Promise<void>, reason = '', expectCall?: string) => {
    await applyWith(review, reason, expectCall);
    await page.locator('[data-testid=change-preview]').waitFor({ state: 'detached' });
    await page.locator('[data-testid=edit-applied]').waitFor();
  };
  const open = async (hash: string) => {
    await browser.open(hash);
    await page.locator('section.policy').waitFor();
  };

  beforeAll(async () => {
    browser = await startConsoleBrowser();
    ({ admin, page } = browser);
    env = await admin.environmentClient();
    await browser.signIn();
    await page.locator('header nav a', { hasText: 'Policy' }).waitFor();
  });

  afterAll(async () => {
    await browser?.close();
  });

  afterEach(() => {
    expect(browser.pageErrors).toEqual([]);
  });

  it('creates resource types, roles, the matrix, extends, a relation and a derivation; checks answer as they imply', async () => {
    await open('#/policy?tab=resources');
    const createType = async (key: string, actions: string, attributes = '') =>
      applied(
        async () => {
          const form = page.locator('[data-testid=new-resource-form]');
          await form.locator('input[name=resource-key]').fill(key);
          await form.locator('input[name=resource-name]').fill(key[0]!.toUpperCase() + key.slice(1));
          await form.locator('input[name=resource-actions]').fill(actions);
          await form.locator('input[name=resource-attributes]').fill(attributes);
          await form.locator('button[name=review-new-resource]').click();
          // A creation has no "before".
          await expect(page.locator('[data-testid=preview-before]').textContent()).resolves.toBe('(absent)');
        },
        '',
        `POST /v2/schema/`,
      );
    await createType('folder', 'read, write');
    await createType('doc', 'read, write, comment, archive', 'classification:string');
    await expect(page.locator('[data-testid=resource-types]').textContent()).resolves.toMatch(/folder.*doc|doc.*folder/);

    const addRole = async (key: string, ext = '') =>
      applied(async () => {
        const form = page.locator('[data-testid=new-role-form]');
        await form.locator('input[name=role-key]').fill(key);
        await form.locator('input[name=role-extends]').fill(ext);
        await form.locator('button[name=review-new-role]').click();
      });
    await open('#/policy?tab=resources&type=folder');
    await page.locator('[data-testid=resource-editor][data-resource=folder]').waitFor();
    await addRole('viewer');
    await addRole('editor', 'viewer');
    // The matrix: viewer reads, editor writes (and reads through extends).
    const matrix = page.locator('[data-testid=role-matrix]');
    await matrix.locator('input[name="perm:viewer:read"]').check();
    await matrix.locator('input[name="perm:editor:write"]').check();
    await page.click('button[name=review-matrix]');
    const preview = page.locator('[data-testid=change-preview]');
    await expect(preview.locator('[data-testid=preview-calls]').textContent()).resolves.toMatch(
      /PATCH \/v2\/schema\/[^/]+\/[^/]+\/resources\/folder\/roles\/editor.*"write".*PATCH .*roles\/viewer.*"read"/s,
    );
    await expect(preview.locator('[data-testid=preview-after]').textContent()).resolves.toContain('"write"');
    await browser.shot('policy-preview');
    await preview.locator('button[name=apply-edit]').click();
    await page.locator('[data-testid=edit-applied]').waitFor();
    await expect(matrix.locator('input[name="perm:editor:write"]').isChecked()).resolves.toBe(true);

    await open('#/policy?tab=resources&type=doc');
    await page.locator('[data-testid=resource-editor][data-resource=doc]').waitFor();
    // The definition: renamed and an action more, in one PUT that keeps the rest.
    await applied(
      async () => {
        const form = page.locator('[data-testid=resource-definition-form]');
        await form.locator('input[name=resource-name]').fill('Document');
        await form.locator('input[name=resource-actions]').fill('read, write, comment, archive, print');
        await form.locator('button[name=review-resource]').click();
      },
      '',
      'PUT /v2/schema/',
    );
    await addRole('editor');
    await addRole('viewer');
    await page.locator('[data-testid=role-matrix] input[name="perm:viewer:read"]').check();
    await applied(() => page.click('button[name=review-matrix]'));
    await applied(async () => {
      const form = page.locator('[data-testid=new-relation-form]');
      await form.locator('input[name=relation-key]').fill('parent');
      await form.locator('select[name=relation-subject]').selectOption('folder');
      await form.locator('button[name=review-new-relation]').click();
    });
    // A doc's viewer is granted to its parent folder's viewers.
    await applied(
      async () => {
        const form = page.locator('[data-testid=new-derivation-form]');
        await form.locator('select[name=derivation-role]').selectOption('viewer');
        await form.locator('select[name=derivation-relation]').selectOption('parent');
        await form.locator('select[name=derivation-from]').selectOption('viewer');
        await form.locator('button[name=review-new-derivation]').click();
      },
      'POL-7: folder viewers read their docs',
      '/resources/doc/roles/viewer/implicit_grants',
    );
    await expect(page.locator('[data-testid=derivations]').textContent()).resolves.toContain(
      'viewer is granted to viewer on folder via parent',
    );
    await browser.shot('policy');

    // The model, as the API has it.
    const folderEditor = await ok(admin.get(`${SCHEMA}/resources/folder/roles/editor`));
    expect({ permissions: folderEditor.permissions, extends: folderEditor.extends }).toEqual({
      permissions: ['write'],
      extends: ['viewer'],
    });
    const docViewer = await ok(admin.get(`${SCHEMA}/resources/doc/roles/viewer`));
    expect(docViewer.permissions).toEqual(['read']);
    expect(docViewer.granted_to.users_with_role).toEqual([
      expect.objectContaining({ role: 'viewer', on_resource: 'folder', linked_by_relation: 'parent' }),
    ]);
    const doc = await ok(admin.get(`${SCHEMA}/resources/doc`));
    expect(doc.name).toBe('Document');
    expect(Object.keys(doc.actions).sort()).toEqual(['archive', 'comment', 'print', 'read', 'write']);
    expect(doc.attributes.classification.type).toBe('string');

    // Checks answer as the edits imply.
    await ok(admin.post(`${FACTS}/tenants`, { key: 'acme', name: 'Acme' }));
    await ok(admin.post(`${FACTS}/resource_instances`, { key: 'f1', resource: 'folder', tenant: 'acme' }));
    await ok(admin.post(`${FACTS}/resource_instances`, { key: 'd1', resource: 'doc', tenant: 'acme' }));
    await ok(admin.post(`${FACTS}/role_assignments`, { user: 'alice', role: 'viewer', resource_instance: 'folder:f1' }));
    await ok(admin.post(`${FACTS}/role_assignments`, { user: 'bob', role: 'editor', resource_instance: 'folder:f1' }));
    await ok(admin.post(`${FACTS}/relationship_tuples`, { subject: 'folder:f1', relation: 'parent', object: 'doc:d1' }));
    expect(await allowed('alice', 'read', 'doc:d1')).toBe(true); // the derivation and the matrix
    expect(await allowed('alice', 'write', 'doc:d1')).toBe(false);
    expect(await allowed('bob', 'read', 'folder:f1')).toBe(true); // editor extends viewer
    expect(await allowed('bob', 'write', 'folder:f1')).toBe(true);
    expect(await allowed('alice', 'write', 'folder:f1')).toBe(false);
  });

  it('creates a top-level role and ticks its row of the matrix over every type’s actions; a tenant assignment then allows', async () => {
    await open('#/policy?tab=roles');
    await applied(
      async () => {
        await page.locator('[data-testid=new-role-form] input[name=role-key]').fill('auditor');
        await page.click('button[name=review-new-role]');
      },
      '',
      '/roles',
    );
    const matrix = page.locator('[data-testid=top-level-matrix]');
    await matrix.locator('input[name="perm:auditor:doc:read"]').check();
    await applied(() => page.click('button[name=review-matrix]'), '', '/roles/auditor');
    expect((await ok(admin.get(`${SCHEMA}/roles/auditor`))).permissions).toEqual(['doc:read']);
    await ok(admin.post(`${FACTS}/role_assignments`, { user: 'erin', role: 'auditor', tenant: 'acme' }));
    expect(await allowed('erin', 'read', 'doc:d1')).toBe(true);
    expect(await allowed('erin', 'read', 'folder:f1')).toBe(false);
  });

  it('creates a user attribute, condition sets with the builder and a set rule; a check then allows by it', async () => {
    await open('#/policy?tab=users');
    await applied(async () => {
      const form = page.locator('[data-testid=new-user-attribute-form]');
      await form.locator('input[name=user-attribute-key]').fill('department');
      await form.locator('select[name=user-attribute-type]').selectOption('string');
      await form.locator('button[name=review-new-user-attribute]').click();
    });
    await page.locator('[data-testid=user-attributes] tr[data-attribute=department]').waitFor();

    await open('#/policy?tab=sets');
    await applied(
      async () => {
        const form = page.locator('[data-testid=new-set-form]');
        await form.locator('input[name=set-key]').fill('legal');
        await form.locator('select[name=set-type]').selectOption('userset');
        await form.locator('button[name=add-condition]').click();
        const row = form.locator('[data-testid=condition-row]').first();
        await row.locator('input[name=condition-attribute]').fill('user.department');
        await row.locator('select[name=condition-operator]').selectOption('equals');
        await row.locator('input[name=condition-value]').fill('legal');
        await browser.shot('policy-conditions');
        await form.locator('button[name=review-new-set]').click();
        await expect(page.locator('[data-testid=preview-calls]').textContent()).resolves.toContain('"user.department": {');
      },
      'POL-8: legal reads contracts',
      '/condition_sets',
    );
    await applied(async () => {
      const form = page.locator('[data-testid=new-set-form]');
      await form.locator('input[name=set-key]').fill('all-docs');
      await form.locator('select[name=set-type]').selectOption('resourceset');
      await form.locator('select[name=set-resource]').selectOption('doc');
      // Raw JSON: the same `{}` the builder would send for no rows, typed.
      await form.locator('button[name=edit-json]').click();
      await form.locator('textarea[name=conditions-json]').fill('{"allOf": [{"resource.key": {"not-equals": "secret"}}]}');
      await form.locator('button[name=review-new-set]').click();
    });
    await expect(page.locator('[data-testid=condition-sets] tr[data-set=legal]').textContent()).resolves.toContain(
      'user.department equals "legal"',
    );

    await open('#/policy?tab=rules');
    await applied(async () => {
      const form = page.locator('[data-testid=new-set-rule-form]');
      await form.locator('select[name=rule-user-set]').selectOption('legal');
      await form.locator('select[name=rule-permission]').selectOption('doc:comment');
      await form.locator('select[name=rule-resource-set]').selectOption('all-docs');
      await form.locator('button[name=review-new-set-rule]').click();
    }, 'POL-8: legal reads contracts');
    await expect(page.locator('[data-testid=set-rules]').textContent()).resolves.toContain('doc:comment');

    const legal = await ok(admin.get(`${SCHEMA}/condition_sets/legal`));
    expect(legal.conditions).toEqual({ allOf: [{ 'user.department': { equals: 'legal' } }] });
    const allDocs = await ok(admin.get(`${SCHEMA}/condition_sets/all-docs`));
    expect(allDocs).toMatchObject({ type: 'resourceset', conditions: { allOf: [{ 'resource.key': { 'not-equals': 'secret' } }] } });
    expect(await ok<unknown[]>(admin.get(`${FACTS}/set_rules`))).toEqual([
      expect.objectContaining({ user_set: 'legal', permission: 'doc:comment', resource_set: 'all-docs' }),
    ]);
    await ok(admin.post(`${FACTS}/users`, { key: 'carol', attributes: { department: 'legal' } }));
    await ok(admin.post(`${FACTS}/users`, { key: 'dave', attributes: { department: 'sales' } }));
    expect(await allowed('carol', 'comment', 'doc:d1')).toBe(true);
    expect(await allowed('dave', 'comment', 'doc:d1')).toBe(false);
    expect(await allowed('carol', 'write', 'doc:d1')).toBe(false);
  });

  it('shows a refused edit with the API’s own message, and nothing changes', async () => {
    // The user attribute a condition compares cannot be deleted: the API refuses it naming the set.
    await open('#/policy?tab=users');
    const before = await head();
    const preview = await applyWith(() => page.click('button[name="delete-user-attribute:department"]'), 'POL-9: should not happen');
    const message = await preview.locator('[data-testid=api-message]').textContent();
    await expect(preview.locator('[data-testid=edit-refused]').textContent()).resolves.toContain('Nothing was changed.');
    // The same call, made directly, is refused with the same message (and changes nothing either).
    const direct = await admin.delete(`${SCHEMA}/users/attributes/department`);
    expect(direct.status).toBeGreaterThanOrEqual(400);
    expect(message).toBe(direct.body.message);
    expect(message).toContain('legal');
    expect(await head()).toBe(before);
    expect((await ok(admin.get(`${SCHEMA}/users/attributes/department`))).type).toBe('string');
    await browser.shot('policy-refused');
    await preview.locator('button:has-text("cancel")').click();

    // A matrix edit of two roles whose second call is refused (its action was deleted meanwhile): the first is taken back.
    await open('#/policy?tab=resources&type=doc');
    const matrix = page.locator('[data-testid=role-matrix]');
    await matrix.locator('input[name="perm:editor:write"]').check();
    await matrix.locator('input[name="perm:viewer:archive"]').check();
    await page.click('button[name=review-matrix]');
    expect(await page.locator('[data-testid=preview-calls] li').count()).toBe(2);
    expect((await admin.delete(`${SCHEMA}/resources/doc/actions/archive`)).status).toBe(204);
    await page.locator('[data-testid=change-preview] button[name=apply-edit]').click();
    const refused = page.locator('[data-testid=edit-refused]');
    await refused.waitFor();
    const roleMessage = await refused.locator('[data-testid=api-message]').textContent();
    expect(roleMessage).toContain("Action 'archive' is not defined on resource 'doc'");
    await expect(refused.textContent()).resolves.toContain('Nothing was changed.');
    expect((await ok(admin.get(`${SCHEMA}/resources/doc/roles/editor`))).permissions).toEqual([]);
    expect((await ok(admin.get(`${SCHEMA}/resources/doc/roles/viewer`))).permissions).toEqual(['read']);
    await page.locator('[data-testid=change-preview] button:has-text("cancel")').click();
  });

  it("keeps each edit's reason as the audit log's audit_metadata", async () => {
    const tagged = await ok<{ data: Array<{ type: string; audit_metadata: unknown; data: Record<string, unknown> }> }>(
      admin.get(`${LOG}?audit_metadata.reason=${encodeURIComponent('POL-7: folder viewers read their docs')}`),
    );
    expect(tagged.data.map((e) => e.type)).toEqual(['ImplicitGrantAdded']);
    expect(tagged.data[0]!.audit_metadata).toEqual({ reason: 'POL-7: folder viewers read their docs' });
    const legal = await ok<{ data: Array<{ type: string }> }>(
      admin.get(`${LOG}?audit_metadata.reason=${encodeURIComponent('POL-8: legal reads contracts')}`),
    );
    expect(legal.data.map((e) => e.type)).toEqual(['ConditionSetCreated', 'SetRuleCreated']);
    // The refused edit left no entry.
    const refused = await ok<{ data: unknown[] }>(
      admin.get(`${LOG}?audit_metadata.reason=${encodeURIComponent('POL-9: should not happen')}`),
    );
    expect(refused.data).toEqual([]);
  });
});
