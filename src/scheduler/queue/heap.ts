// A binary heap keyed by string, with removal and update by key (the scheduler's backend/heap).
export class KeyedHeap<T> {
  private readonly items: T[] = [];
  private readonly positions = new Map<string, number>();

  constructor(
    private readonly keyOf: (item: T) => string,
    /** True when `a` comes out before `b`. */
    private readonly less: (a: T, b: T) => boolean,
  ) {}

  get size(): number {
    return this.items.length;
  }

  has(key: string): boolean {
    return this.positions.has(key);
  }

  get(key: string): T | undefined {
    const index = this.positions.get(key);
    return index === undefined ? undefined : this.items[index];
  }

  peek(): T | undefined {
    return this.items[0];
  }

  /** Adds the item, or replaces the one with the same key and restores order. */
  addOrUpdate(item: T): void {
    const key = this.keyOf(item);
    const index = this.positions.get(key);
    if (index !== undefined) {
      this.items[index] = item;
      this.fix(index);
      return;
    }
    this.items.push(item);
    this.positions.set(key, this.items.length - 1);
    this.up(this.items.length - 1);
  }

  pop(): T | undefined {
    if (this.items.length === 0) return undefined;
    const top = this.items[0]!;
    this.removeAt(0);
    return top;
  }

  delete(key: string): T | undefined {
    const index = this.positions.get(key);
    if (index === undefined) return undefined;
    const item = this.items[index]!;
    this.removeAt(index);
    return item;
  }

  list(): T[] {
    return this.items.slice();
  }

  private removeAt(index: number): void {
    const item = this.items[index]!;
    this.positions.delete(this.keyOf(item));
    const last = this.items.pop()!;
    if (index < this.items.length) {
      this.items[index] = last;
      this.positions.set(this.keyOf(last), index);
      this.fix(index);
    }
  }

  private fix(index: number): void {
    if (!this.up(index)) this.down(index);
  }

  private up(start: number): boolean {
    let index = start;
    const item = this.items[index]!;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      const parentItem = this.items[parent]!;
      if (!this.less(item, parentItem)) break;
      this.items[index] = parentItem;
      this.positions.set(this.keyOf(parentItem), index);
      index = parent;
    }
    this.items[index] = item;
    this.positions.set(this.keyOf(item), index);
    return index !== start;
  }

  private down(start: number): void {
    let index = start;
    const length = this.items.length;
    const item = this.items[index]!;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= length) break;
      const right = left + 1;
      let child = left;
      if (right < length && this.less(this.items[right]!, this.items[left]!)) child = right;
      const childItem = this.items[child]!;
      if (!this.less(childItem, item)) break;
      this.items[index] = childItem;
      this.positions.set(this.keyOf(childItem), index);
      index = child;
    }
    this.items[index] = item;
    this.positions.set(this.keyOf(item), index);
  }
}
