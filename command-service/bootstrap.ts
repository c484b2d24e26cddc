import { randomInt } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import type { ReadModels } from '../shared/read-models/read-models';
import { generateApiKeySecret, hashApiKeySecret } from '../shared/api-keys';
import type { Config } from '../shared/config';
import type { CommandPipeline } from '../shared/cqrs/command-pipeline';
import type { OrgCommand, OrgState } from '../shared/domain/org/decider';
import type { EnvEvent, OrgEvent } from '../shared/events';
import type { EnvCommand } from '../shared/domain/env/commands';
import type { EnvState } from '../shared/domain/env/state';
import { defaultTenantCommand } from '../shared/domain/env/default-tenant';
import { CURRENT_SCHEMA_VERSION, streams } from '../shared/events';
import { deterministicId } from '../shared/ids';
import { DuplicateEntityError } from '../shared/errors';
import type { DocumentStore } from '../shared/docstore/port';
import { ensureDir } from '../shared/data-dir';
import { BOOTSTRAP_SEED_CHECKPOINT } from '../shared/read-models/layout';

export const ADMIN_KEY_FILE = 'admin-api-key';

/**
 * First start on an empty store: one organisation, a `default` project with a
 * `production` environment (with its `default` tenant), and an organisation-level API key. The key is
 * ADMIN_API_KEY when set; otherwise a generated one is written (mode 0600) to
 * DATA_DIR/admin-api-key and its path is logged. Returns the position to wait for.
 */
export async function bootstrapIfEmpty(
  config: Config,
  readModels: ReadModels,
  orgCommands: CommandPipeline<OrgCommand, OrgState, OrgEvent>,
  logger: Logger,
  envCommands: CommandPipeline<EnvCommand, EnvState, EnvEvent>,
): Promise<number> {
  if ((await readModels.organizations.count({})) > 0) return 0;
  const secret = config.ADMIN_API_KEY ?? generateApiKeySecret();
  // Several command-service replicas may get here at once: they agree on one seed (the first stored wins),
  // so all of them try to create the same organisation stream, and exactly one append wins.
  const seed = await bootstrapSeed(readModels.store);
  const id = (what: string) => deterministicId(`bootstrap-${seed}`, what);
  const organizationId = id('organization');
  const environmentId = id('environment');
  let outcome;
  try {
    outcome = await orgCommands.execute(
      streams.organization(organizationId),
      {
        type: 'BootstrapOrganization',
        organization: { id: organizationId, key: 'default', name: 'Default Organization' },
        project: { id: id('project'), key: 'default', name: 'Default Project' },
        environment: {
          id: environmentId,
          key: 'production',
          name: 'Production',
          description: null,
          customBranchName: null,
          jwks: {},
          settings: {},
        },
        apiKey: { id: id('api-key'), secretHash: hashApiKeySecret(secret) },
      },
      { actor: null, timestamp: new Date().toISOString(), schemaVersion: CURRENT_SCHEMA_VERSION },
    );
  } catch (error) {
    if (!(error instanceof DuplicateEntityError)) throw error;
    logger.info('another replica bootstrapped the organization');
    return 0;
  }
  // Its `default` tenant, as every new environment has (the replica that created the organisation writes it).
  const tenant = await envCommands.execute(streams.environment(environmentId), defaultTenantCommand(environmentId), {
    actor: null,
    timestamp: new Date().toISOString(),
    schemaVersion: CURRENT_SCHEMA_VERSION,
  });
  if (config.ADMIN_API_KEY) {
    logger.info('bootstrapped the organization with ADMIN_API_KEY as its admin key');
  } else {
    const path = resolve(join(ensureDir(config.DATA_DIR), ADMIN_KEY_FILE));
    writeFileSync(path, `${secret}\n`, { mode: 0o600 });
    logger.info({ path }, 'bootstrapped the organization; the admin API key is in this file');
  }
  return Math.max(outcome.position, tenant.position);
}

/** A random seed for the bootstrap ids, stored by compare-and-set so that every replica uses the first one stored. */
async function bootstrapSeed(store: DocumentStore): Promise<number> {
  const saved = await store.saveCheckpoint(BOOTSTRAP_SEED_CHECKPOINT, null, randomInt(1, 2 ** 47));
  const seed = saved.ok ? await store.loadCheckpoint(BOOTSTRAP_SEED_CHECKPOINT) : saved.current;
  if (seed === null) throw new Error('the bootstrap seed vanished from the document store');
  return seed;
}
