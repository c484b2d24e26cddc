import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import type { ReadModels } from '../projection-service/read-models';
import { generateApiKeySecret, hashApiKeySecret } from '../shared/api-keys';
import type { Config } from '../shared/config';
import type { CommandPipeline } from '../shared/cqrs/command-pipeline';
import type { OrgCommand, OrgState } from '../shared/domain/org/decider';
import type { OrgEvent } from '../shared/events';
import { CURRENT_SCHEMA_VERSION, streams } from '../shared/events';
import { newId } from '../shared/ids';
import { ensureDir } from '../shared/composition/stores';

export const ADMIN_KEY_FILE = 'admin-api-key';

/**
 * First start on an empty store: one organisation, a `default` project with a
 * `production` environment, and an organisation-level API key. The key is
 * ADMIN_API_KEY when set; otherwise a generated one is written (mode 0600) to
 * DATA_DIR/admin-api-key and its path is logged. Returns the position to wait for.
 */
export async function bootstrapIfEmpty(
  config: Config,
  readModels: ReadModels,
  orgCommands: CommandPipeline<OrgCommand, OrgState, OrgEvent>,
  logger: Logger,
): Promise<number> {
  if ((await readModels.organizations.count({})) > 0) return 0;
  const secret = config.ADMIN_API_KEY ?? generateApiKeySecret();
  const organizationId = newId();
  const outcome = await orgCommands.execute(
    streams.organization(organizationId),
    {
      type: 'BootstrapOrganization',
      organization: { id: organizationId, key: 'default', name: 'Default Organization' },
      project: { id: newId(), key: 'default', name: 'Default Project' },
      environment: { id: newId(), key: 'production', name: 'Production', description: '', customBranchName: '', jwks: {}, settings: {} },
      apiKey: { id: newId(), secretHash: hashApiKeySecret(secret) },
    },
    { actor: null, timestamp: new Date().toISOString(), schemaVersion: CURRENT_SCHEMA_VERSION },
  );
  if (config.ADMIN_API_KEY) {
    logger.info('bootstrapped the organization with ADMIN_API_KEY as its admin key');
  } else {
    const path = resolve(join(ensureDir(config.DATA_DIR), ADMIN_KEY_FILE));
    writeFileSync(path, `${secret}\n`, { mode: 0o600 });
    logger.info({ path }, 'bootstrapped the organization; the admin API key is in this file');
  }
  return outcome.position;
}
