import type { AttributeDef, AttributeType } from '../../events';
import { attributeTypes } from '../../events';
import { deterministicId } from '../../ids';

/**
 * User attributes are the attributes of this built-in resource (as in Permit,
 * where a user is a resource of its own). It is created, with an explicit
 * ResourceCreated, by the first user attribute; callers cannot create it.
 */
export const USER_RESOURCE = '__user';

const isAttributeType = (value: unknown): value is AttributeType => attributeTypes.includes(value as AttributeType);

/**
 * A resource's attribute definitions from ResourceCreated's `attributes`.
 * Events written now hold `{[key]: {id, type, description}}`. Events written
 * before attributes were objects of their own hold what the caller sent
 * (unchecked JSON): an entry without an id gets one derived from the
 * resource's id and the key (stable across replays), a missing or unknown type
 * reads as 'json', and a missing description as null.
 */
export function attributeDefsOf(resourceId: string, attributes: Record<string, unknown>): AttributeDef[] {
  return Object.entries(attributes).map(([key, value]) => {
    const v = (value !== null && typeof value === 'object' ? value : {}) as Record<string, unknown>;
    return {
      id: typeof v.id === 'string' ? v.id : deterministicId(resourceId, `attribute:${key}`),
      key,
      type: isAttributeType(v.type) ? v.type : 'json',
      description: typeof v.description === 'string' ? v.description : null,
    };
  });
}

/** The form ResourceCreated's `attributes` is written in. */
export const attributesData = (defs: AttributeDef[]): Record<string, unknown> =>
  Object.fromEntries(defs.map(({ key, ...rest }) => [key, rest]));
