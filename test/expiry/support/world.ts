import type { TestServer } from '../../support/embedded-server';
import { documentSchema, Scenario } from '../../grants/support/scenario';

/** The expiry tests' environment `name`: the document-sharing schema, and `folder:f` and `document:d` in tenant acme. */
export async function folderAndDocument(server: TestServer, name: string): Promise<Scenario> {
  const s = await Scenario.create(server, name);
  await documentSchema(s);
  await s.instance('folder:f', 'acme');
  await s.instance('document:d', 'acme');
  return s;
}
