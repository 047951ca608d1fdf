/**
 * A list kept sorted by `compare`, stored as a sequence of blocks of at most MAX_BLOCK entries, so that inserting
 * an entry costs a binary search and a splice of one block (O(log n + MAX_BLOCK)) instead of moving the whole
 * array, and removing a batch filters each block it touches once. Entries that compare equal are allowed;
 * `removeAll` removes the very entries it is given.
 */
const MAX_BLOCK = 1024;
const FILL = MAX_BLOCK / 2;

/** Where an entry sits: its block and its offset in that block. */
export interface BlockPosition {
  block: number;
  offset: number;
}

export class SortedBlocks<E> {
  private blocks: E[][] = [];
  private count = 0;

  constructor(private readonly compare: (a: E, b: E) => number) {}

  get size(): number {
    return this.count;
  }

  /** Replaces the contents with `sorted` (already in order). */
  reset(sorted: readonly E[]): void {
    this.blocks = [];
    for (let start = 0; start < sorted.length; start += FILL)
      this.blocks.push(sorted.slice(start, start + FILL));
    this.count = sorted.length;
  }

  toArray(): E[] {
    return this.blocks.flat();
  }

  insert(entry: E): void {
    if (this.blocks.length === 0) {
      this.blocks.push([entry]);
      this.count = 1;
      return;
    }
    // The first block whose last entry sorts after the new one, or the last block.
    let blockIndex = this.firstBlockNotBefore((last) => this.compare(last, entry) <= 0);
    if (blockIndex === this.blocks.length) blockIndex -= 1;
    const block = this.blocks[blockIndex] as E[];
    block.splice(
      lowerBound(block, (other) => this.compare(other, entry) <= 0),
      0,
      entry,
    );
    this.count += 1;
    if (block.length > MAX_BLOCK) this.blocks.splice(blockIndex + 1, 0, block.splice(FILL));
  }

  /**
   * Removes each of `entries` that is in the list (by identity). Cheaper than `remove` one by one when many
   * share blocks: each touched block is filtered once instead of spliced per entry.
   */
  removeAll(entries: readonly E[]): void {
    if (entries.length === 0) return;
    const doomed = new Set(entries);
    const sorted = [...entries].sort(this.compare);
    const touched = new Set<number>();
    let current = -1;
    for (const entry of sorted) {
      const block = this.blocks[current];
      const inCurrent =
        block !== undefined &&
        this.compare(block[0] as E, entry) <= 0 &&
        this.compare(block[block.length - 1] as E, entry) > 0;
      if (!inCurrent) current = this.firstBlockNotBefore((other) => this.compare(other, entry) < 0);
      // Entries equal to `entry` may continue into the next blocks.
      for (let index = current; index < this.blocks.length; index++) {
        const candidate = this.blocks[index] as E[];
        touched.add(index);
        if (this.compare(candidate[candidate.length - 1] as E, entry) > 0) break;
      }
    }
    for (const index of touched) {
      const block = this.blocks[index] as E[];
      const kept = block.filter((entry) => !doomed.has(entry));
      this.count -= block.length - kept.length;
      this.blocks[index] = kept;
    }
    this.blocks = this.blocks.filter((block) => block.length > 0);
  }

  /**
   * The position of the first entry for which `isBefore` is false. `isBefore` must hold for a prefix of the
   * list (true, then false for the rest).
   */
  seek(isBefore: (entry: E) => boolean): BlockPosition {
    const block = this.firstBlockNotBefore(isBefore);
    const entries = this.blocks[block];
    return { block, offset: entries === undefined ? 0 : lowerBound(entries, isBefore) };
  }

  /** Calls `visit` with each entry from `position` on, in order, until it returns false. */
  forEachFrom(position: BlockPosition, visit: (entry: E) => boolean): void {
    let offset = position.offset;
    for (let blockIndex = position.block; blockIndex < this.blocks.length; blockIndex++) {
      const block = this.blocks[blockIndex] as E[];
      for (; offset < block.length; offset++) if (!visit(block[offset] as E)) return;
      offset = 0;
    }
  }

  /** Index of the first block whose last entry is not before (so the block holds the first such entry). */
  private firstBlockNotBefore(isBefore: (entry: E) => boolean): number {
    let low = 0;
    let high = this.blocks.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const block = this.blocks[middle] as E[];
      if (isBefore(block[block.length - 1] as E)) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

/** Index of the first item of `items` for which `isBefore` is false. */
function lowerBound<E>(items: readonly E[], isBefore: (item: E) => boolean): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (isBefore(items[middle] as E)) low = middle + 1;
    else high = middle;
  }
  return low;
}
