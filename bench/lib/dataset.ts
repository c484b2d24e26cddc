/**
 * The benchmark's data set, the same for our service and for OpenFGA: folders
 * and documents (each document's parent is one folder), users holding editor
 * or viewer on folders (derived onto the folder's documents) and viewer on some
 * documents directly. Deterministic for a given size (seeded PRNG), so two runs
 * check the same things.
 */
export interface DatasetSize {
  folders: number;
  documents: number;
  users: number;
}

export interface Check {
  user: string;
  action: 'read' | 'write';
  document: string;
  expected: boolean;
}

export interface Assignment {
  user: string;
  role: 'editor' | 'viewer';
  /** `folder:fN` or `document:dN` */
  instance: string;
}

export const TENANT = 'bench';

/** mulberry32: small, fast, good enough to spread picks. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Dataset {
  readonly assignments: Assignment[] = [];
  private readonly folderEditors: Array<Set<number>> = [];
  private readonly folderViewers: Array<Set<number>> = [];
  private readonly documentViewers = new Map<number, Set<number>>();

  constructor(readonly size: DatasetSize) {
    const random = prng(42);
    const pick = (n: number) => Math.floor(random() * n);
    for (let f = 0; f < size.folders; f++) {
      // One editor and two viewers per folder, three different users.
      const editor = pick(size.users);
      let v1 = pick(size.users);
      while (v1 === editor) v1 = pick(size.users);
      let v2 = pick(size.users);
      while (v2 === editor || v2 === v1) v2 = pick(size.users);
      this.folderEditors.push(new Set([editor]));
      this.folderViewers.push(new Set([v1, v2]));
      this.assignments.push({ user: `u${editor}`, role: 'editor', instance: `folder:f${f}` });
      this.assignments.push(
        { user: `u${v1}`, role: 'viewer', instance: `folder:f${f}` },
        { user: `u${v2}`, role: 'viewer', instance: `folder:f${f}` },
      );
    }
    // One document in ten has a direct viewer.
    for (let d = 0; d < size.documents; d += 10) {
      const viewer = pick(size.users);
      this.documentViewers.set(d, new Set([viewer]));
      this.assignments.push({ user: `u${viewer}`, role: 'viewer', instance: `document:d${d}` });
    }
  }

  get instances(): number {
    return this.size.folders + this.size.documents;
  }

  /** Document d's parent folder. */
  parentOf(d: number): number {
    return d % this.size.folders;
  }

  /** The reference answer, from the model's meaning (not from either server). */
  allowed(user: number, action: 'read' | 'write', d: number): boolean {
    const folder = this.parentOf(d);
    if (this.folderEditors[folder]!.has(user)) return true;
    if (action === 'write') return false;
    return this.folderViewers[folder]!.has(user) || (this.documentViewers.get(d)?.has(user) ?? false);
  }

  /**
   * `n` checks on documents, about half of them allowed through a folder role
   * (derived), the rest random pairs (almost all denied).
   */
  checks(n: number, seed = 7): Check[] {
    const random = prng(seed);
    const pick = (k: number) => Math.floor(random() * k);
    const out: Check[] = [];
    for (let i = 0; i < n; i++) {
      const d = pick(this.size.documents);
      const action = random() < 0.5 ? 'read' : 'write';
      let user: number;
      if (i % 2 === 0) {
        const folder = this.parentOf(d);
        const holders =
          action === 'write' ? [...this.folderEditors[folder]!] : [...this.folderEditors[folder]!, ...this.folderViewers[folder]!];
        user = holders[pick(holders.length)]!;
      } else {
        user = pick(this.size.users);
      }
      out.push({ user: `u${user}`, action, document: `d${d}`, expected: this.allowed(user, action, d) });
    }
    return out;
  }
}
