import type { Collection, Filter, FindOptions } from '../../shared/docstore/port';
import type { GrantDoc } from '../../shared/read-models/grants/model';

/**
 * Grants the queries read but nothing writes here: the effective grants (stored rows and the
 * grants they imply) and the grants as of a past position (derived on the fly). `findOne` and
 * `count` follow from `find`; every write is refused with `whyReadOnly`.
 */
export abstract class ReadOnlyGrants implements Collection<GrantDoc> {
  constructor(private readonly whyReadOnly: string) {}

  abstract get(id: string): Promise<GrantDoc | null>;
  abstract find(filter: Filter, options?: FindOptions): Promise<GrantDoc[]>;

  async findOne(filter: Filter): Promise<GrantDoc | null> {
    return (await this.find(filter, { limit: 1 }))[0] ?? null;
  }

  async count(filter: Filter): Promise<number> {
    return (await this.find(filter)).length;
  }

  put(): Promise<void> {
    return this.refuse();
  }
  putMany(): Promise<void> {
    return this.refuse();
  }
  insertMissing(): Promise<GrantDoc[]> {
    return this.refuse();
  }
  delete(): Promise<void> {
    return this.refuse();
  }
  deleteMany(): Promise<number> {
    return this.refuse();
  }

  private refuse(): Promise<never> {
    return Promise.reject(new Error(this.whyReadOnly));
  }
}
