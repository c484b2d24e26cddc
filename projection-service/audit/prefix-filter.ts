/**
 * A Bloom filter of strings: `mayHold` is false only for a string never added.
 * The audit projection keeps the prefixes of the postings it has stored in one,
 * so that a term new to a scope (every request's own `request_id`) costs no read
 * of the index to learn that it has no postings yet.
 *
 * It grows: past `capacity` strings (counted when an add sets a bit, so a string
 * added again is not counted twice) `full` turns true, and the owner starts a
 * larger one (`grown`) and adds again what it needs, since a Bloom filter cannot
 * list what it holds.
 */
export class PrefixFilter {
  /** Bits per string at capacity: with HASHES probes, about 1 false positive in 1,000. */
  static readonly BITS_PER_STRING = 16;
  static readonly HASHES = 6;

  private readonly bits: Uint32Array;
  /** Bit count - 1 (a power of two less one): a probe's bit is its hash masked. */
  private readonly mask: number;
  private added = 0;

  constructor(readonly capacity: number) {
    const wanted = Math.max(1024, capacity * PrefixFilter.BITS_PER_STRING);
    const bitCount = 2 ** Math.ceil(Math.log2(wanted));
    this.bits = new Uint32Array(bitCount / 32);
    this.mask = bitCount - 1;
  }

  /** Past capacity: false positives climb from here, so the owner should grow it. */
  get full(): boolean {
    return this.added > this.capacity;
  }

  /** An empty filter for twice the capacity. */
  grown(): PrefixFilter {
    return new PrefixFilter(this.capacity * 2);
  }

  add(text: string): void {
    const [first, step] = hashes(text);
    let probe = first;
    let set = false;
    for (let i = 0; i < PrefixFilter.HASHES; i++) {
      const bit = probe & this.mask;
      const word = bit >>> 5;
      const flag = 1 << (bit & 31);
      if ((this.bits[word]! & flag) === 0) {
        this.bits[word]! |= flag;
        set = true;
      }
      // Double hashing (Kirsch and Mitzenmacher): the i-th probe is first + i * step.
      probe = (probe + step) | 0;
    }
    if (set) this.added++;
  }

  mayHold(text: string): boolean {
    const [first, step] = hashes(text);
    let probe = first;
    for (let i = 0; i < PrefixFilter.HASHES; i++) {
      const bit = probe & this.mask;
      if ((this.bits[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
      probe = (probe + step) | 0;
    }
    return true;
  }
}

/** Two independent 32-bit hashes of the string's UTF-16 units in one pass: FNV-1a, and a multiply-xor of MurmurHash2's constant. */
function hashes(text: string): [number, number] {
  let fnv = 0x811c9dc5;
  let murmur = 0x9747b28c ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    fnv = Math.imul(fnv ^ unit, 0x01000193);
    murmur = Math.imul(murmur ^ unit, 0x5bd1e995);
    murmur ^= murmur >>> 15;
  }
  // An odd step visits distinct bits of a power-of-two table.
  return [fnv >>> 0, (murmur | 1) >>> 0];
}
