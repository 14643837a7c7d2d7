import { badRequest, internalError, type PatchError, unprocessable } from './errors.js';
import { goSprintS, goSprintV, goTypeName } from './go-format.js';

// Strategic merge patch failures with apimachinery's texts, sorted the way kube-apiserver's
// interpretStrategicMergePatchError sorts them: malformed directives are 400, lists of lists
// 422 (with the generic message), and everything else reaches the client as a bare 500.

export function badPrimitiveListFormat(): PatchError {
  return badRequest('invalid patch format of primitive list');
}

export function badRetainKeysFormat(): PatchError {
  return badRequest('invalid patch format of retainKeys');
}

export function badSetElementOrderFormat(): PatchError {
  return badRequest('invalid patch format of setElementOrder list');
}

export function noListOfLists(): PatchError {
  return unprocessable('lists of lists are not supported');
}

export function noMergeKey(item: unknown, mergeKey: string): PatchError {
  return internalError(`map: ${goSprintV(item)} does not contain declared merge key: ${mergeKey}`);
}

/** mergepatch.ErrBadArgType: `expected` names the Go type that was wanted. */
export function badArgType(
  expected: 'map[string]interface {}' | '[]interface {}',
  actual: unknown,
): PatchError {
  return internalError(`expected a ${expected}, but received a ${goTypeName(actual)}`);
}

export function badPatchType(directive: unknown, map: unknown): PatchError {
  return internalError(`unknown patch type: ${goSprintS(directive)} in map: ${goSprintV(map)}`);
}

export function smpInternal(message: string): PatchError {
  return internalError(message);
}
