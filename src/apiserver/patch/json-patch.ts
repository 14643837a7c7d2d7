import { badRequest, requestEntityTooLarge, unprocessable } from './errors.js';
import { goUnmarshalTypeError } from './go-json.js';
import { isJsonObject, type JsonObject, type JsonValue, jsonEqual, setMember } from './json-value.js';

// RFC 6902 JSON patch as kube-apiserver applies it: through gopkg.in/evanphx/json-patch.v4. Its
// quirks are part of Kubernetes' behaviour and are kept: `replace` of a missing object key adds
// it, `copy` from a missing key copies null, negative array indices count from the end, and a
// path without a leading `/` addresses the root. Failures to apply answer 422 with a generic
// message; the library's own text is kept in PatchError.detail.

/** kube-apiserver's cap on operations in one JSON patch (maxJSONPatchOperations). */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

/** kube-apiserver's default cap on the bytes all `copy` operations of one patch may add. */
export const JSON_PATCH_MAX_COPY_BYTES = 3 * 1024 * 1024;

type Container = JsonObject | JsonValue[];
type Operation = JsonObject | null;

/** Thrown inside this module with the library's error text; turned into a PatchError at the top. */
class OperationFailure extends Error {}

const missingValue = 'missing value';
const invalidIndex = 'invalid index referenced';

/**
 * Applies an RFC 6902 patch (already decoded from JSON) to `doc` and returns the new document;
 * `doc` is not modified (it is, when `consumeDoc`: the caller's own copy). Throws PatchError: 400 when the patch is not a list of operations, 413
 * past MAX_JSON_PATCH_OPERATIONS, 422 when an operation does not apply.
 */
export function applyJsonPatch(doc: unknown, patch: unknown, consumeDoc = false): JsonValue {
  const operations = decodeOperations(patch);
  if (operations.length > MAX_JSON_PATCH_OPERATIONS) {
    throw requestEntityTooLarge(
      `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${operations.length}`,
    );
  }
  if (!isJsonObject(doc) && !Array.isArray(doc)) {
    throw unprocessable(goUnmarshalTypeError(doc as JsonValue, 'jsonpatch.partialDoc'));
  }
  const state = { root: (consumeDoc ? doc : structuredClone(doc)) as Container, copiedBytes: 0 };
  try {
    for (const operation of operations) applyOperation(state, operation);
  } catch (error) {
    if (error instanceof OperationFailure) throw unprocessable(error.message);
    throw error;
  }
  return state.root;
}

function decodeOperations(patch: unknown): Operation[] {
  if (patch === null) return [];
  if (!Array.isArray(patch)) throw badRequest(goUnmarshalTypeError(patch as JsonValue, 'jsonpatch.Patch'));
  for (const operation of patch) {
    if (operation !== null && !isJsonObject(operation)) {
      throw badRequest(goUnmarshalTypeError(operation as JsonValue, 'jsonpatch.Operation'));
    }
  }
  return patch as Operation[];
}

interface PatchState {
  root: Container;
  copiedBytes: number;
}

function applyOperation(state: PatchState, operation: Operation): void {
  const kind = operationKind(operation);
  const apply = operationHandlers.get(kind);
  if (!apply || !operation) throw new OperationFailure(`Unexpected kind: ${kind}`);
  apply(state, operation);
}

const operationHandlers = new Map<string, (state: PatchState, operation: JsonObject) => void>([
  ['add', add],
  ['remove', remove],
  ['replace', replace],
  ['move', move],
  ['test', test],
  ['copy', copy],
]);

function operationKind(operation: Operation): string {
  const op = operation?.op;
  return typeof op === 'string' ? op : 'unknown';
}

/** The operation's `path` or `from`; throws the library's decode error text. */
function stringField(operation: JsonObject, field: 'path' | 'from'): string {
  const value = operation[field];
  if (value === undefined || value === null) {
    throw new OperationFailure(
      field === 'path'
        ? `operation missing path field: ${missingValue}`
        : `operation, missing from field: ${missingValue}`,
    );
  }
  if (typeof value !== 'string') throw new OperationFailure(goUnmarshalTypeError(value, 'string'));
  return value;
}

function withContext(context: string, action: () => void): void {
  try {
    action();
  } catch (error) {
    if (error instanceof OperationFailure) throw new OperationFailure(`${context}: ${error.message}`);
    throw error;
  }
}

function decodedField(operation: JsonObject, field: 'path' | 'from', context: string): string {
  let value = '';
  withContext(context, () => {
    value = stringField(operation, field);
  });
  return value;
}

/** The operation's value; a missing `value` acts as null, as the library stores a nil node. */
function operationValue(operation: JsonObject): JsonValue {
  return structuredClone(operation.value ?? null);
}

function add(state: PatchState, operation: JsonObject): void {
  const path = pathOrMissing(operation, 'add operation failed to decode path');
  const target = findContainer(state.root, path);
  if (!target) throw missing(`add operation does not apply: doc is missing path: "${path}"`);
  withContext(`error in add for path: '${path}'`, () =>
    containerAdd(target.container, target.key, operationValue(operation)),
  );
}

function remove(state: PatchState, operation: JsonObject): void {
  const path = pathOrMissing(operation, 'remove operation failed to decode path');
  const target = findContainer(state.root, path);
  if (!target) throw missing(`remove operation does not apply: doc is missing path: "${path}"`);
  withContext(`error in remove for path: '${path}'`, () => containerRemove(target.container, target.key));
}

function replace(state: PatchState, operation: JsonObject): void {
  const path = decodedField(operation, 'path', 'replace operation failed to decode path');
  if (path === '') {
    // The library replaces the whole document only with an object or an array and silently
    // ignores anything else.
    const value = operationValue(operation);
    if (isJsonObject(value) || Array.isArray(value)) state.root = value;
    return;
  }
  const target = findContainer(state.root, path);
  if (!target) throw missing(`replace operation does not apply: doc is missing path: ${path}`);
  try {
    containerGet(target.container, target.key);
  } catch (error) {
    if (error instanceof OperationFailure)
      throw missing(`replace operation does not apply: doc is missing key: ${path}`);
    throw error;
  }
  withContext(`error in remove for path: '${path}'`, () =>
    containerSet(target.container, target.key, operationValue(operation)),
  );
}

function move(state: PatchState, operation: JsonObject): void {
  const from = decodedField(operation, 'from', 'move operation failed to decode from');
  const source = findContainer(state.root, from);
  if (!source) throw missing(`move operation does not apply: doc is missing from path: ${from}`);
  let value: JsonValue | undefined;
  withContext(`error in move for path: '${source.key}'`, () => {
    value = containerGet(source.container, source.key);
    containerRemove(source.container, source.key);
  });
  const path = decodedField(operation, 'path', 'move operation failed to decode path');
  const target = findContainer(state.root, path);
  if (!target) throw missing(`move operation does not apply: doc is missing destination path: ${path}`);
  withContext(`error in move for path: '${path}'`, () =>
    containerAdd(target.container, target.key, value ?? null),
  );
}

function test(state: PatchState, operation: JsonObject): void {
  const path = decodedField(operation, 'path', 'test operation failed to decode path');
  const expected = operation.value ?? null;
  const failed = new OperationFailure(`testing value ${path} failed: test failed`);
  if (path === '') {
    if (!jsonEqual(state.root, expected)) throw failed;
    return;
  }
  const target = findContainer(state.root, path);
  if (!target) throw missing(`test operation does not apply: is missing path: ${path}`);
  let actual: JsonValue | undefined;
  withContext(`error in test for path: '${path}'`, () => {
    actual = containerGet(target.container, target.key);
  });
  // A missing key and a null value are the same nil node to the library.
  if (!jsonEqual(actual ?? null, expected)) throw failed;
}

function copy(state: PatchState, operation: JsonObject): void {
  const from = decodedField(operation, 'from', 'copy operation failed to decode from');
  const source = findContainer(state.root, from);
  if (!source) throw missing(`copy operation does not apply: doc is missing from path: ${from}`);
  let value: JsonValue | undefined;
  withContext(`error in copy for from: '${from}'`, () => {
    value = containerGet(source.container, source.key);
  });
  const path = pathOrMissing(operation, 'copy operation failed to decode path');
  const target = findContainer(state.root, path);
  if (!target) throw missing(`copy operation does not apply: doc is missing destination path: ${path}`);
  const copied = value === undefined || value === null ? null : structuredClone(value);
  state.copiedBytes += copied === null ? 0 : goJsonSize(copied);
  if (state.copiedBytes > JSON_PATCH_MAX_COPY_BYTES) {
    throw new OperationFailure(
      `Unable to complete the copy, the accumulated size increase of copy is ${state.copiedBytes}, exceeding the limit ${JSON_PATCH_MAX_COPY_BYTES}`,
    );
  }
  withContext('error while adding value during copy', () =>
    containerAdd(target.container, target.key, copied),
  );
}

/** add, remove and copy report any bad `path` as plain "missing value", as the library does. */
function pathOrMissing(operation: JsonObject, context: string): string {
  const value = operation.path;
  if (typeof value !== 'string') throw missing(context);
  return value;
}

function missing(message: string): OperationFailure {
  return new OperationFailure(`${message}: ${missingValue}`);
}

interface Target {
  container: Container;
  key: string;
}

/** The container holding the last token of `path`, or undefined when a step is missing. */
function findContainer(root: Container, path: string): Target | undefined {
  const tokens = path.split('/');
  if (tokens.length < 2) return undefined;
  let current: Container = root;
  for (const token of tokens.slice(1, -1)) {
    let next: JsonValue | undefined;
    try {
      next = containerGet(current, decodePointerToken(token));
    } catch (error) {
      if (error instanceof OperationFailure) return undefined;
      throw error;
    }
    if (!isJsonObject(next) && !Array.isArray(next)) return undefined;
    current = next;
  }
  return { container: current, key: decodePointerToken(tokens.at(-1)!) };
}

/** RFC 6901: `~1` is `/`, `~0` is `~`, read left to right. */
export function decodePointerToken(token: string): string {
  return token.replace(/~[01]/g, (token) => (token === '~1' ? '/' : '~'));
}

function containerGet(container: Container, key: string): JsonValue | undefined {
  if (!Array.isArray(container)) return Object.hasOwn(container, key) ? container[key] : undefined;
  let index = atoi(key);
  if (index < 0) {
    if (index < -container.length) throw invalidIndexError(index);
    index += container.length;
  }
  if (index >= container.length) throw invalidIndexError(index);
  return container[index];
}

function containerSet(container: Container, key: string, value: JsonValue): void {
  if (!Array.isArray(container)) {
    setMember(container, key, value);
    return;
  }
  let index = atoi(key);
  if (index < 0) {
    if (index < -container.length) throw invalidIndexError(index);
    index += container.length;
  }
  container[index] = value;
}

function containerAdd(container: Container, key: string, value: JsonValue): void {
  if (!Array.isArray(container)) {
    setMember(container, key, value);
    return;
  }
  if (key === '-') {
    container.push(value);
    return;
  }
  let index: number;
  try {
    index = atoi(key);
  } catch (error) {
    if (error instanceof OperationFailure) {
      throw new OperationFailure(`value was not a proper array index: '${key}': ${error.message}`);
    }
    throw error;
  }
  const size = container.length + 1;
  if (index >= size) throw invalidIndexError(index);
  if (index < 0) {
    if (index < -size) throw invalidIndexError(index);
    index += size;
  }
  container.splice(index, 0, value);
}

function containerRemove(container: Container, key: string): void {
  if (!Array.isArray(container)) {
    if (!Object.hasOwn(container, key)) {
      throw new OperationFailure(`Unable to remove nonexistent key: ${key}: ${missingValue}`);
    }
    delete container[key];
    return;
  }
  let index = atoi(key);
  if (index >= container.length) throw invalidIndexError(index);
  if (index < 0) {
    if (index < -container.length) throw invalidIndexError(index);
    index += container.length;
  }
  container.splice(index, 1);
}

function invalidIndexError(index: number): OperationFailure {
  return new OperationFailure(`Unable to access invalid index: ${index}: ${invalidIndex}`);
}

const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

/** Go's strconv.Atoi, with its error texts. */
function atoi(text: string): number {
  if (!/^[+-]?\d+$/.test(text))
    throw new OperationFailure(`strconv.Atoi: parsing ${goQuote(text)}: invalid syntax`);
  const value = BigInt(text);
  if (value < int64Min || value > int64Max) {
    throw new OperationFailure(`strconv.Atoi: parsing ${goQuote(text)}: value out of range`);
  }
  return Number(value);
}

const goEscapes: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
};

/** strconv.Quote for the ASCII cases array indices meet. */
function goQuote(text: string): string {
  let body = '';
  for (const c of text) {
    const code = c.charCodeAt(0);
    const named = goEscapes[c];
    if (named !== undefined) body += named;
    else if (code < 0x20 || code === 0x7f) body += `\\x${code.toString(16).padStart(2, '0')}`;
    else body += c;
  }
  return `"${body}"`;
}

/** Bytes of Go's json.Marshal output, which escapes <, > and & and the two JS line separators. */
function goJsonSize(value: JsonValue): number {
  const text = JSON.stringify(value);
  let extra = 0;
  for (const c of text) {
    if (c === '<' || c === '>' || c === '&') extra += 5;
    else if (c === '\u2028' || c === '\u2029') extra += 3;
  }
  return Buffer.byteLength(text, 'utf8') + extra;
}
