// structured-merge-diff's fieldpath.Set: a trie of path elements. `members` are the paths that end
// here, `children` the sets below an element; both are kept sorted by comparePathElements, as
// upstream's sortedPathElements and SetNodeMap are, so iteration and serialisation order match.
import { comparePathElements, type Path, type PathElement, serializePathElement } from './path-element.js';

export interface SetNode {
  readonly element: PathElement;
  readonly set: FieldSet;
}

// Binary search for the first position whose element is not less than `pe`.
function lowerBound<T>(items: readonly T[], pe: PathElement, elementOf: (item: T) => PathElement): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (comparePathElements(elementOf(items[mid] as T), pe) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const self = (pe: PathElement): PathElement => pe;
/** Lists shorter than this take out-of-order inserts in place: moving a few entries is cheapest. */
const DEFER_SORTING_FROM = 64;
const nodeElement = (node: SetNode): PathElement => node.element;

export class FieldSet {
  private memberList: PathElement[];
  private childList: SetNode[];
  // In a long list, elements inserted out of order wait at its end until a read sorts them in: a
  // sorted insert would move half the list each time (a list map of 50,000 items built in its own
  // order is quadratic that way). While children are out of order, an index finds them by their
  // serialised element, which is equal exactly when the elements are.
  private membersUnsorted = false;
  private childIndex: Map<string, SetNode> | undefined;
  /** The child `descend` returned last (see there). */
  private recent: SetNode | undefined;

  constructor(members: PathElement[] = [], children: SetNode[] = []) {
    this.memberList = members;
    this.childList = children;
  }

  /** The paths that end here, sorted. */
  get members(): PathElement[] {
    if (this.membersUnsorted) {
      this.memberList.sort(comparePathElements);
      let kept = 0;
      for (const pe of this.memberList) {
        const previous = this.memberList[kept - 1];
        if (previous === undefined || comparePathElements(previous, pe) !== 0) this.memberList[kept++] = pe;
      }
      this.memberList.length = kept;
      this.membersUnsorted = false;
    }
    return this.memberList;
  }

  /** The sets below each element, sorted by element. */
  get children(): SetNode[] {
    if (this.childIndex) {
      this.childList.sort((a, b) => comparePathElements(a.element, b.element));
      this.childIndex = undefined;
    }
    return this.childList;
  }

  static of(...paths: Path[]): FieldSet {
    const set = new FieldSet();
    for (const path of paths) set.insert(path);
    return set;
  }

  /** Set.Insert (mutates: used while building a set). */
  insert(path: Path): void {
    if (path.length === 0) return;
    let set: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) set = set.descend(path[i] as PathElement);
    set.insertMember(path[path.length - 1] as PathElement);
  }

  insertMember(pe: PathElement): void {
    const list = this.memberList;
    if (!this.membersUnsorted) {
      // Sets are mostly built in order: appending past the last member needs one comparison.
      const last = list[list.length - 1];
      const toLast = last === undefined ? -1 : comparePathElements(last, pe);
      if (toLast === 0) return;
      if (toLast > 0) {
        const at = lowerBound(list, pe, self);
        const found = list[at];
        if (found && comparePathElements(found, pe) === 0) return;
        if (list.length < DEFER_SORTING_FROM) {
          list.splice(at, 0, pe);
          return;
        }
        this.membersUnsorted = true;
      }
    }
    // Duplicates among the unsorted ones go when the list is next read.
    list.push(pe);
  }

  /** SetNodeMap.Descend: the child set under `pe`, created when missing. */
  descend(pe: PathElement): FieldSet {
    // Paths arrive depth first, so the child descended last is often the one asked for again,
    // and a new child often sorts after every other: one comparison each instead of a search.
    const recent = this.recent;
    if (recent && comparePathElements(recent.element, pe) === 0) return recent.set;
    const list = this.childList;
    let node: SetNode | undefined;
    if (this.childIndex) node = this.childIndex.get(serializePathElement(pe));
    else {
      const last = list[list.length - 1];
      const toLast = last === undefined ? -1 : comparePathElements(last.element, pe);
      if (toLast === 0) node = last;
      else if (toLast > 0) {
        const at = lowerBound(list, pe, nodeElement);
        const found = list[at];
        if (found && comparePathElements(found.element, pe) === 0) node = found;
        else if (list.length < DEFER_SORTING_FROM) {
          node = { element: pe, set: new FieldSet() };
          list.splice(at, 0, node);
        } else this.childIndex = new Map(list.map((child) => [serializePathElement(child.element), child]));
      }
    }
    if (!node) {
      node = { element: pe, set: new FieldSet() };
      list.push(node);
      this.childIndex?.set(serializePathElement(pe), node);
    }
    this.recent = node;
    return node.set;
  }

  /** Adds every path of `other` to this set (mutates: used while building a set). */
  absorb(other: FieldSet): void {
    const merged = this.members.length === 0 && this.children.length === 0 ? other : this.union(other);
    // Copies, not a spread into splice's arguments: a list map can have more items than a call
    // may take arguments.
    this.memberList = [...merged.members];
    this.childList = [...merged.children];
    this.membersUnsorted = false;
    this.childIndex = undefined;
    this.recent = undefined;
  }

  hasMember(pe: PathElement): boolean {
    const found = this.members[lowerBound(this.members, pe, self)];
    return found !== undefined && comparePathElements(found, pe) === 0;
  }

  child(pe: PathElement): FieldSet | undefined {
    const found = this.children[lowerBound(this.children, pe, nodeElement)];
    return found && comparePathElements(found.element, pe) === 0 ? found.set : undefined;
  }

  /** Set.Has. */
  has(path: Path): boolean {
    if (path.length === 0) return false;
    let set: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1; i++) {
      set = set.child(path[i] as PathElement);
      if (!set) return false;
    }
    return set.hasMember(path[path.length - 1] as PathElement);
  }

  /** Set.WithPrefix: the paths below `pe`, without it. */
  withPrefix(pe: PathElement): FieldSet {
    return this.child(pe) ?? new FieldSet();
  }

  /** Set.Empty: no member anywhere (a child node may hold an empty set). */
  empty(): boolean {
    if (this.members.length > 0) return false;
    return this.children.every((node) => node.set.empty());
  }

  /** Set.Size: members plus child nodes, counted recursively. */
  size(): number {
    return this.members.length + this.children.reduce((n, node) => n + node.set.size(), 0);
  }

  equals(other: FieldSet): boolean {
    if (this.members.length !== other.members.length || this.children.length !== other.children.length)
      return false;
    for (let i = 0; i < this.members.length; i++) {
      if (comparePathElements(this.members[i] as PathElement, other.members[i] as PathElement) !== 0)
        return false;
    }
    for (let i = 0; i < this.children.length; i++) {
      const a = this.children[i] as SetNode;
      const b = other.children[i] as SetNode;
      if (comparePathElements(a.element, b.element) !== 0 || !a.set.equals(b.set)) return false;
    }
    return true;
  }

  union(other: FieldSet): FieldSet {
    return new FieldSet(
      mergeSorted(this.members, other.members, 'union'),
      unionNodes(this.children, other.children),
    );
  }

  intersection(other: FieldSet): FieldSet {
    return new FieldSet(
      mergeSorted(this.members, other.members, 'intersection'),
      intersectNodes(this.children, other.children),
    );
  }

  /** Set.Difference: members removed one by one; children differenced below their element. */
  difference(other: FieldSet): FieldSet {
    return new FieldSet(
      mergeSorted(this.members, other.members, 'difference'),
      differenceNodes(this.children, other),
    );
  }

  /** Set.RecursiveDifference: also drops every child whose element is a member of `other`. */
  recursiveDifference(other: FieldSet): FieldSet {
    const children: SetNode[] = [];
    for (const node of this.children) {
      if (other.hasMember(node.element)) continue;
      const theirs = other.child(node.element);
      if (!theirs) {
        children.push(node);
        continue;
      }
      const diff = node.set.recursiveDifference(theirs);
      if (!diff.empty()) children.push({ element: node.element, set: diff });
    }
    return new FieldSet(mergeSorted(this.members, other.members, 'difference'), children);
  }

  /** Set.Iterate: members before children, depth first, in order. */
  iterate(visit: (path: Path) => void, prefix: Path = []): void {
    for (const pe of this.members) visit([...prefix, pe]);
    for (const node of this.children) node.set.iterate(visit, [...prefix, node.element]);
  }

  paths(): Path[] {
    const out: Path[] = [];
    this.iterate((path) => out.push(path));
    return out;
  }

  /** Set.Leaves: members that have no children. */
  leaves(): FieldSet {
    const members = this.members.filter((pe) => !this.child(pe));
    return new FieldSet(
      members,
      this.children.map((node) => ({ element: node.element, set: node.set.leaves() })),
    );
  }
}

function mergeSorted(
  a: readonly PathElement[],
  b: readonly PathElement[],
  mode: 'union' | 'intersection' | 'difference',
): PathElement[] {
  const out: PathElement[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const c = comparePathElements(a[i] as PathElement, b[j] as PathElement);
    if (c < 0) {
      if (mode !== 'intersection') out.push(a[i] as PathElement);
      i++;
    } else if (c > 0) {
      if (mode === 'union') out.push(b[j] as PathElement);
      j++;
    } else {
      if (mode !== 'difference') out.push(a[i] as PathElement);
      i++;
      j++;
    }
  }
  if (mode !== 'intersection') out.push(...a.slice(i));
  if (mode === 'union') out.push(...b.slice(j));
  return out;
}

function unionNodes(a: readonly SetNode[], b: readonly SetNode[]): SetNode[] {
  const out: SetNode[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const left = a[i] as SetNode;
    const right = b[j] as SetNode;
    const c = comparePathElements(left.element, right.element);
    if (c < 0) {
      out.push(left);
      i++;
    } else if (c > 0) {
      out.push(right);
      j++;
    } else {
      out.push({ element: left.element, set: left.set.union(right.set) });
      i++;
      j++;
    }
  }
  return [...out, ...a.slice(i), ...b.slice(j)];
}

function intersectNodes(a: readonly SetNode[], b: readonly SetNode[]): SetNode[] {
  const out: SetNode[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const left = a[i] as SetNode;
    const right = b[j] as SetNode;
    const c = comparePathElements(left.element, right.element);
    if (c < 0) i++;
    else if (c > 0) j++;
    else {
      const set = left.set.intersection(right.set);
      if (!set.empty()) out.push({ element: left.element, set });
      i++;
      j++;
    }
  }
  return out;
}

function differenceNodes(a: readonly SetNode[], other: FieldSet): SetNode[] {
  const out: SetNode[] = [];
  for (const node of a) {
    const theirs = other.child(node.element);
    if (!theirs) {
      out.push(node);
      continue;
    }
    const set = node.set.difference(theirs);
    if (!set.empty()) out.push({ element: node.element, set });
  }
  return out;
}
