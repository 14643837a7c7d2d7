// Path and file-mode checks shared by volumes and container mounts.
import { type FieldError, fieldInvalid } from '../../../../api/selectors/index.js';

export const FILE_MODE_MESSAGE = 'must be a number between 0 and 0777 (octal), both inclusive';

/** validatePathNoBacksteps: no `..` element. */
export function validatePathNoBacksteps(target: string, path: string): FieldError[] {
  return target.split('/').includes('..') ? [fieldInvalid(path, target, "must not contain '..'")] : [];
}

/** validateLocalDescendingPath: relative and without `..`. */
export function validateLocalDescendingPath(target: string, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (target.startsWith('/')) errors.push(fieldInvalid(path, target, 'must be a relative path'));
  errors.push(...validatePathNoBacksteps(target, path));
  return errors;
}

/** ValidateLocalNonReservedPath: as above, and not starting with `..`. */
export function validateLocalNonReservedPath(target: string, path: string): FieldError[] {
  const errors = validateLocalDescendingPath(target, path);
  if (target.startsWith('..') && !target.startsWith('../')) {
    errors.push(fieldInvalid(path, target, "must not start with '..'"));
  }
  return errors;
}

/** A file mode field (defaultMode, mode): 0..0777. */
export function validateFileMode(mode: unknown, path: string): FieldError[] {
  if (typeof mode !== 'number') return [];
  return mode > 0o777 || mode < 0 ? [fieldInvalid(path, mode, FILE_MODE_MESSAGE)] : [];
}
