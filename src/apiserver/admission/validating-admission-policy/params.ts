// The params a binding evaluates its policy with (upstream's collectParams): none without a
// paramKind or paramRef, else the param named or those a selector picks, read in the request's
// namespace or paramRef.namespace for namespaced kinds; missing params under
// `parameterNotFoundAction: Deny` and misconfigured references are configuration errors.
import type { KubeObject } from '../../../api/object.js';
import { type LabelSelectorObject, labelSelectorFromObject } from '../../../api/selectors/index.js';
import type { ParamKind, ParamRef } from '../../../api/types/admissionregistration-v1.generated.js';
import type { ObjectLister } from '../object-cache.js';

/** Where the params of a paramKind are read, or undefined when no such resource is served. */
export type ParamSource = (paramKind: ParamKind) => { namespaced: boolean; lister: ObjectLister } | undefined;

/** A policy or binding that cannot be used as configured; failurePolicy decides what follows. */
export class ConfigurationError extends Error {}

/** Go's GroupVersionKind.String() in upstream's configuration error. */
export function paramKindNotFound(paramKind: ParamKind): string {
  const apiVersion = paramKind.apiVersion ?? '';
  const gv = apiVersion.includes('/') ? apiVersion : `/${apiVersion}`;
  return `failed to find resource referenced by paramKind: '${gv}, Kind=${paramKind.kind ?? ''}'`;
}

function labelsOf(text: string): { object: KubeObject; labels: Record<string, string> } {
  const object = JSON.parse(text) as KubeObject;
  return { object, labels: (object.metadata?.labels as Record<string, string> | undefined) ?? {} };
}

/** The params a binding evaluates with: [null] when it uses none. */
export async function collectParams(
  params: ParamSource,
  paramKind: ParamKind | undefined,
  paramRef: ParamRef | undefined,
  namespace: string,
): Promise<unknown[]> {
  if (paramKind === undefined || paramKind === null || paramRef === undefined || paramRef === null)
    return [null];
  const source = params(paramKind);
  if (source === undefined) throw new ConfigurationError(paramKindNotFound(paramKind));
  let paramNamespace = '';
  if (source.namespaced) {
    paramNamespace = paramRef.namespace || namespace;
    if (paramNamespace === '')
      throw new ConfigurationError(
        'cannot use namespaced paramRef in policy binding that matches cluster-scoped resources',
      );
  } else if (paramRef.namespace) {
    throw new ConfigurationError('paramRef.namespace must not be provided for a cluster-scoped `paramKind`');
  }
  let found: unknown[] = [];
  if (paramRef.name) {
    const param = await source.lister.find(paramNamespace, paramRef.name);
    if (param !== undefined) found = [param];
  } else if (paramRef.selector !== undefined && paramRef.selector !== null) {
    const selector = labelSelectorFromObject(paramRef.selector as LabelSelectorObject);
    const { items } = await source.lister.list(paramNamespace);
    found = items
      .map(labelsOf)
      .filter((item) => selector.matches(item.labels))
      .map((item) => item.object);
  } else {
    throw new ConfigurationError('one of name or selector must be provided');
  }
  if (found.length === 0 && (paramRef.parameterNotFoundAction ?? 'Deny') === 'Deny')
    throw new ConfigurationError('no params found for policy binding with `Deny` parameterNotFoundAction');
  return found.map((param) => {
    // Params carry their type, as upstream fills in a param's empty TypeMeta.
    const object = param as KubeObject;
    return { apiVersion: paramKind.apiVersion, kind: paramKind.kind, ...object };
  });
}
