// apiextensions-apiserver's naming controller (pkg/controller/status): the names a CRD asks for are
// accepted unless another CRD of its group already holds them, with NamesAccepted saying why not;
// the establishing controller then marks Established at once (one API server: no wait).
import type { KubeObject } from '../../api/object.js';
import { acceptedNames, type CrdCondition, type CrdNames, crdSpec, findCondition } from './crd-object.js';

interface NameUse {
  readonly resources: Set<string>;
  readonly kinds: Set<string>;
}

/** getAcceptedNamesForGroup: what the other CRDs of the group have been given. */
function namesInUse(crd: KubeObject, all: readonly KubeObject[]): NameUse {
  const group = crdSpec(crd).group;
  const use: NameUse = { resources: new Set(), kinds: new Set() };
  for (const other of all) {
    if (other.metadata?.name === crd.metadata?.name || crdSpec(other).group !== group) continue;
    const names = acceptedNames(other);
    for (const name of [names.plural, names.singular, ...names.shortNames]) use.resources.add(name);
    use.kinds.add(names.kind);
    use.kinds.add(names.listKind);
  }
  return use;
}

function conflict(requested: string, accepted: string, used: Set<string>): string | undefined {
  if (requested === accepted || !used.has(requested)) return undefined;
  return `"${requested}" is already in use`;
}

export interface NamingResult {
  readonly acceptedNames: CrdNames;
  readonly namesAccepted: CrdCondition;
  readonly established: CrdCondition;
}

/** calculateNamesAndConditions, then the establishing controller's step when names are accepted. */
export function calculateNames(crd: KubeObject, all: readonly KubeObject[]): NamingResult {
  const use = namesInUse(crd, all);
  const requested = crdSpec(crd).names;
  const accepted = acceptedNames(crd);
  const next = { ...accepted } as { -readonly [K in keyof CrdNames]: CrdNames[K] };
  let failure: { reason: string; message: string } | undefined;
  const check = (field: 'plural' | 'singular' | 'kind' | 'listKind', reason: string, used: Set<string>) => {
    const problem = conflict(requested[field], accepted[field], used);
    if (problem) failure = { reason, message: problem };
    else next[field] = requested[field];
  };
  check('plural', 'PluralConflict', use.resources);
  check('singular', 'SingularConflict', use.resources);
  if (JSON.stringify(requested.shortNames) !== JSON.stringify(accepted.shortNames)) {
    const held = new Set(accepted.shortNames);
    const problems = requested.shortNames
      .filter((name) => !held.has(name))
      .map((name) => conflict(name, '', use.resources))
      .filter((problem): problem is string => problem !== undefined);
    if (problems.length > 0) {
      failure = {
        reason: 'ShortNamesConflict',
        message: problems.length === 1 ? problems[0]! : `[${problems.join(', ')}]`,
      };
    } else next.shortNames = requested.shortNames;
  }
  check('kind', 'KindConflict', use.kinds);
  check('listKind', 'ListKindConflict', use.kinds);
  next.categories = requested.categories;
  const namesAccepted: CrdCondition = failure
    ? { type: 'NamesAccepted', status: 'False', ...failure }
    : { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' };
  let established: CrdCondition = findCondition(crd, 'Established') ?? {
    type: 'Established',
    status: 'False',
    reason: 'NotAccepted',
    message: 'not all names are accepted',
  };
  if (established.status !== 'True' && namesAccepted.status === 'True') {
    established = {
      type: 'Established',
      status: 'True',
      reason: 'InitialNamesAccepted',
      message: 'the initial names have been accepted',
    };
  }
  return { acceptedNames: next, namesAccepted, established };
}

/** The names as status.acceptedNames stores them (empty lists left out, as omitempty does). */
export function acceptedNamesJson(names: CrdNames): Record<string, unknown> {
  return {
    plural: names.plural,
    singular: names.singular,
    ...(names.shortNames.length > 0 ? { shortNames: [...names.shortNames] } : {}),
    kind: names.kind,
    listKind: names.listKind,
    ...(names.categories.length > 0 ? { categories: [...names.categories] } : {}),
  };
}
