import { goQuote } from '../../api/selectors/go-text.js';
import { OPAQUE_SHAPE, type Shape } from './shapes.js';

// kube-apiserver's strict decoder (sigs.k8s.io/json UnmarshalStrict) reports unknown and duplicate fields
// while it decodes the body, in document order. JSON.parse keeps the last of duplicate keys silently and
// cannot say where a key was, so this scans the bytes themselves, following the Go type (Shape) of each
// position as the decoder does:
//  - a key a struct does not declare is an unknown field, and nothing below it is looked at;
//  - a key seen twice in one object literal is a duplicate field (struct, map and interface{} alike);
//  - values with their own decoder (Quantity, Time, RawExtension...) are skipped whole;
//  - each error is reported once, and at most 100 are kept.
// Paths join keys with "." and add list indexes as "[i]": spec.template.spec.containers[0].imagex.
// The body must already be known to be valid JSON; on anything else the scan stops early.

export type StrictErrorKind = 'unknown' | 'duplicate';

export interface StrictFieldError {
  readonly kind: StrictErrorKind;
  readonly path: string;
}

/** The decoder stops recording strict errors after this many. */
export const MAX_STRICT_ERRORS = 100;

/** The error text, as Go prints it: `unknown field "spec.replicasx"`. */
export function strictErrorText(error: StrictFieldError): string {
  return `${error.kind} field ${goQuote(error.path)}`;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** An object or array being read. Paths are built only when an error needs one. */
interface Frame {
  readonly isObject: boolean;
  readonly shape: Shape;
  readonly parent: Frame | undefined;
  /** How the parent reached this container: its key, or its index when the parent is an array. */
  readonly via: string | number;
  /** Struct fields met so far in this object literal, by ordinal: bits for the first 31, then a set. */
  seenFields: number;
  seenMoreFields: Set<number> | undefined;
  /** Map keys met so far in this object literal (a list while short, which is cheaper than a Set). */
  seenKeys: string[] | Set<string> | undefined;
  /** Index of the array element being read. */
  index: number;
}

/** Child path of a key: `key` at the top, else `parent.key` (a "" key still counts as a level). */
export function keyPath(parent: string | undefined, key: string): string {
  return parent === undefined ? key : `${parent}.${key}`;
}

export function indexPath(parent: string | undefined, index: number): string {
  return `${parent ?? ''}[${index}]`;
}

function framePath(frame: Frame): string | undefined {
  const chain: Frame[] = [];
  for (let at: Frame | undefined = frame; at?.parent !== undefined; at = at.parent) chain.push(at);
  let path: string | undefined;
  for (let i = chain.length - 1; i >= 0; i--) {
    const via = chain[i]!.via;
    path = typeof via === 'number' ? indexPath(path, via) : keyPath(path, via);
  }
  return path;
}

/** The strict errors Go's decoder reports for `json` decoded into a value of shape `root`. */
export function scanStrictErrors(json: Uint8Array, root: Shape): StrictFieldError[] {
  const bytes = Buffer.isBuffer(json) ? json : Buffer.from(json.buffer, json.byteOffset, json.byteLength);
  return new StrictScanner(bytes).scan(root);
}

class StrictScanner {
  private readonly errors: StrictFieldError[] = [];
  private readonly recorded = new Set<string>();
  private pos = 0;
  /** The frame whose member or element is being read; undefined at the top. */
  private frame: Frame | undefined;
  /** The key of the member being read, when `frame` is an object. */
  private key = '';

  constructor(private readonly bytes: Buffer) {}

  scan(root: Shape): StrictFieldError[] {
    const bytes = this.bytes;
    // The shape of the value about to be read; undefined once it has been read.
    let shape: Shape | undefined = root;
    for (;;) {
      this.pos = skipSpace(bytes, this.pos);
      if (shape !== undefined) {
        const c = bytes[this.pos];
        const kind: Shape['kind'] = shape.kind;
        if (c === OPEN_BRACE && (kind === 'struct' || kind === 'map' || kind === 'any')) {
          this.pos = skipSpace(bytes, this.pos + 1);
          if (bytes[this.pos] === CLOSE_BRACE) {
            this.pos++;
            shape = undefined;
            continue;
          }
          this.frame = this.child(true, shape);
          shape = this.member();
          if (shape === undefined) return this.errors;
          continue;
        }
        if (c === OPEN_BRACKET && (kind === 'list' || kind === 'any')) {
          this.pos = skipSpace(bytes, this.pos + 1);
          if (bytes[this.pos] === CLOSE_BRACKET) {
            this.pos++;
            shape = undefined;
            continue;
          }
          this.frame = this.child(false, shape);
          shape = shape.kind === 'list' ? shape.items : shape;
          continue;
        }
        const end = skipValue(bytes, this.pos);
        if (end <= this.pos) return this.errors;
        this.pos = end;
        shape = undefined;
        continue;
      }

      // After a value: a separator or the end of the enclosing container.
      const frame = this.frame;
      if (frame === undefined) return this.errors;
      const c = bytes[this.pos];
      if (c === COMMA) {
        this.pos++;
        if (frame.isObject) {
          shape = this.member();
          if (shape === undefined) return this.errors;
        } else {
          frame.index++;
          shape = frame.shape.kind === 'list' ? frame.shape.items : frame.shape;
        }
      } else if (c === (frame.isObject ? CLOSE_BRACE : CLOSE_BRACKET)) {
        this.pos++;
        this.frame = frame.parent;
      } else {
        return this.errors;
      }
    }
  }

  /** A frame for a container that is the value now being read. */
  private child(isObject: boolean, shape: Shape): Frame {
    const parent = this.frame;
    const via = parent === undefined ? '' : parent.isObject ? this.key : parent.index;
    return {
      isObject,
      shape,
      parent,
      via,
      seenFields: 0,
      seenMoreFields: undefined,
      seenKeys: undefined,
      index: 0,
    };
  }

  /**
   * Reads `"key":` inside the current object frame and records what Go would. Returns the shape of the
   * member's value, or undefined when the scan must stop (malformed input, or the error limit reached).
   */
  private member(): Shape | undefined {
    const bytes = this.bytes;
    const frame = this.frame!;
    let pos = skipSpace(bytes, this.pos);
    if (bytes[pos] !== QUOTE) return undefined;
    const end = skipString(bytes, pos);
    const key = decodeKey(bytes, pos, end);
    pos = skipSpace(bytes, end);
    if (bytes[pos] !== COLON) return undefined;
    this.pos = pos + 1;
    this.key = key;

    const container = frame.shape;
    if (container.kind === 'struct') {
      const field = container.field(key);
      if (field === undefined) return this.record('unknown', frame, key) ? OPAQUE_SHAPE : undefined;
      if (isDuplicateField(frame, field.ordinal) && !this.record('duplicate', frame, key)) return undefined;
      return field.shape;
    }
    if (isDuplicateKey(frame, key) && !this.record('duplicate', frame, key)) return undefined;
    return container.kind === 'map' ? container.values : container;
  }

  /** Records an error once; false when the limit is reached and the scan should stop. */
  private record(kind: StrictErrorKind, frame: Frame, key: string): boolean {
    const path = keyPath(framePath(frame), key);
    const id = `${kind}:${path}`;
    if (!this.recorded.has(id)) {
      this.recorded.add(id);
      this.errors.push({ kind, path });
    }
    return this.errors.length < MAX_STRICT_ERRORS;
  }
}

const SHORT_OBJECT = 16;

function isDuplicateField(frame: Frame, ordinal: number): boolean {
  if (ordinal < 31) {
    const bit = 1 << ordinal;
    if (frame.seenFields & bit) return true;
    frame.seenFields |= bit;
    return false;
  }
  frame.seenMoreFields ??= new Set();
  if (frame.seenMoreFields.has(ordinal)) return true;
  frame.seenMoreFields.add(ordinal);
  return false;
}

function isDuplicateKey(frame: Frame, key: string): boolean {
  const seen = frame.seenKeys;
  if (seen === undefined) {
    frame.seenKeys = [key];
    return false;
  }
  if (Array.isArray(seen)) {
    if (seen.includes(key)) return true;
    if (seen.length < SHORT_OBJECT) seen.push(key);
    else frame.seenKeys = new Set([...seen, key]);
    return false;
  }
  if (seen.has(key)) return true;
  seen.add(key);
  return false;
}

function skipSpace(bytes: Uint8Array, pos: number): number {
  let at = pos;
  for (;;) {
    const c = bytes[at];
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return at;
    at++;
  }
}

/** The position just after the string literal whose opening quote is at `pos`. */
function skipString(bytes: Uint8Array, pos: number): number {
  let from = pos + 1;
  for (;;) {
    const quote = bytes.indexOf(QUOTE, from);
    if (quote < 0) return bytes.length;
    let backslashes = 0;
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** The position just after the value starting at `pos`, without looking inside it. */
function skipValue(bytes: Uint8Array, pos: number): number {
  const first = bytes[pos];
  if (first === QUOTE) return skipString(bytes, pos);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    let at = pos;
    while (at < bytes.length) {
      const c = bytes[at]!;
      if (c === QUOTE) {
        at = skipString(bytes, at);
        continue;
      }
      if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
      else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
      at++;
      if (depth === 0) return at;
    }
    return at;
  }
  let at = pos;
  while (at < bytes.length) {
    const c = bytes[at];
    if (
      c === COMMA ||
      c === CLOSE_BRACE ||
      c === CLOSE_BRACKET ||
      c === 0x20 ||
      c === 0x0a ||
      c === 0x0d ||
      c === 0x09
    )
      break;
    at++;
  }
  return at;
}

/** The key of the string literal spanning [start, end), quotes included. */
function decodeKey(bytes: Buffer, start: number, end: number): string {
  let plain = true;
  for (let i = start + 1; i < end - 1; i++) {
    const c = bytes[i]!;
    if (c === BACKSLASH || c >= 0x80) {
      plain = false;
      break;
    }
  }
  if (plain) return bytes.toString('latin1', start + 1, end - 1);
  const literal = bytes.toString('utf8', start, end);
  return literal.includes('\\') ? (JSON.parse(literal) as string) : literal.slice(1, -1);
}
