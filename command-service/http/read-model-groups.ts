/**
 * Read models that change rarely and that most requests read, each written by one projection
 * alone: `organisation` (API keys, projects, environments: authentication and the
 * `/:proj_id/:env_id` scope of every request) and `schema` (roles and their permissions: every
 * check); and `answers`, everything a permission check reads, which every event may change but
 * the expiries (shared/read-models/answer-changes.ts): what the decision cache is kept by.
 */
export type ReadModelGroup = 'organisation' | 'schema' | 'answers';

/** The part of Freshness (services.ts) that says when read models changed. */
export interface ChangePositions {
  readonly position: number;
  lastChangeOf?(group: ReadModelGroup): number;
}

/**
 * What a cache of answers read only from `group` is kept per: the position of the group's last
 * change where the process knows it (Freshness.lastChangeOf), else the read models' position.
 */
export function changePosition(freshness: ChangePositions, group: ReadModelGroup): () => number {
  const lastChangeOf = freshness.lastChangeOf?.bind(freshness);
  return lastChangeOf ? () => lastChangeOf(group) : () => freshness.position;
}
