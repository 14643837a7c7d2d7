// Operation IDs and tags as kube-apiserver derives them from a route's operation name and path:
// `readNamespacedPod` at /api/v1/... becomes `readCoreV1NamespacedPod` tagged `core_v1`.

// The shortest of these that starts the operation name is its verb (so `deletecollection...` splits
// after `delete`, giving `deleteCoreV1CollectionNamespacedPod`).
const VERBS = [
  'get',
  'log',
  'read',
  'replace',
  'patch',
  'delete',
  'deletecollection',
  'watch',
  'connect',
  'proxy',
  'list',
  'create',
];

const LETTER = /\p{L}/u;
const DIGIT = /\p{Nd}/u;

/** Drops characters that cannot appear in an identifier and capitalises the letter after each. */
export function toValidOperationId(text: string, capitalizeFirstLetter: boolean): string {
  let out = '';
  let capitalize = capitalizeFirstLetter;
  let index = 0;
  for (const char of text) {
    if (LETTER.test(char) || char === '_' || (index !== 0 && DIGIT.test(char))) {
      out += capitalize ? char.toUpperCase() : char;
      capitalize = false;
    } else {
      capitalize = true;
    }
    index += char.length;
  }
  return out;
}

function verbPrefix(operation: string): string {
  let best: string | undefined;
  for (const verb of VERBS) {
    if (operation.startsWith(verb) && (best === undefined || verb.length < best.length)) best = verb;
  }
  if (best === undefined) throw new Error(`operation ${operation} does not start with a verb`);
  return best;
}

export interface OperationNaming {
  readonly operationId: string;
  readonly tags: string[];
}

export function operationIdAndTags(operation: string, path: string): OperationNaming {
  let prefix = verbPrefix(operation);
  const rest = operation.slice(prefix.length);
  let parts = path.replace(/^\/+|\/+$/g, '').split('/');
  if (parts[0] === 'api') parts = ['apis', 'core', ...parts.slice(1)];
  const tags: string[] = [];
  if (parts.length >= 2 && parts[0] === 'apis') {
    const group = parts[1]!.replace(/\.k8s\.io$/, '');
    prefix += toValidOperationId(group, prefix !== '');
    let tag = toValidOperationId(group, false);
    if (parts.length > 2) {
      prefix += toValidOperationId(parts[2]!, prefix !== '');
      tag += `_${toValidOperationId(parts[2]!, false)}`;
    }
    tags.push(tag);
  } else if (parts.length >= 1) {
    tags.push(toValidOperationId(parts[0]!, false));
  }
  return { operationId: prefix + toValidOperationId(rest, prefix !== ''), tags };
}
