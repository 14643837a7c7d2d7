// Edits a kubeconfig's text in place of a whole rewrite: the YAML document keeps every other
// cluster, user, context, preference, extension and comment exactly as the user had them.
import { Document, isMap, isScalar, isSeq, parseDocument, YAMLSeq } from 'yaml';
import { ClusterError } from './errors.js';

/** One tkube cluster's entries: cluster, user and context all share `name`. */
export interface KubeconfigEntry {
  name: string;
  server: string;
  /** Base64 of the cluster CA certificate's PEM. */
  certificateAuthorityData: string;
  /** Base64 of the admin client certificate's PEM. */
  clientCertificateData: string;
  /** Base64 of the admin client key's PEM. */
  clientKeyData: string;
}

const NAMED_LISTS = ['clusters', 'users', 'contexts'] as const;
type NamedList = (typeof NAMED_LISTS)[number];

/**
 * Stringify as kubectl writes kubeconfigs (list items not indented), and never fold long lines:
 * certificate data is one long scalar.
 */
const TO_STRING = { lineWidth: 0, indentSeq: false } as const;

function namedItems(entry: KubeconfigEntry): Record<NamedList, Record<string, unknown>> {
  return {
    clusters: {
      cluster: { 'certificate-authority-data': entry.certificateAuthorityData, server: entry.server },
      name: entry.name,
    },
    contexts: { context: { cluster: entry.name, user: entry.name }, name: entry.name },
    users: {
      name: entry.name,
      user: {
        'client-certificate-data': entry.clientCertificateData,
        'client-key-data': entry.clientKeyData,
      },
    },
  };
}

/** A kubeconfig holding only this entry, as its current context (field order as kubectl writes it). */
export function renderKubeconfig(entry: KubeconfigEntry): string {
  const items = namedItems(entry);
  return new Document(standaloneConfig(items, entry.name)).toString(TO_STRING);
}

function standaloneConfig(items: Record<NamedList, Record<string, unknown>>, currentContext: string) {
  return {
    apiVersion: 'v1',
    clusters: [items.clusters],
    contexts: [items.contexts],
    'current-context': currentContext,
    kind: 'Config',
    preferences: {},
    users: [items.users],
  };
}

/**
 * Adds the entry to a kubeconfig's text (undefined or empty for a new file), replacing entries of
 * the same name, and optionally makes it the current context. `source` names the file in errors.
 */
export function mergeKubeconfigEntry(
  text: string | undefined,
  entry: KubeconfigEntry,
  options: { setCurrentContext: boolean; source: string },
): string {
  const items = namedItems(entry);
  const document = parseKubeconfig(text ?? '', options.source);
  if (document.contents === null) {
    const config = standaloneConfig(items, entry.name);
    if (!options.setCurrentContext) config['current-context'] = '';
    document.contents = document.createNode(config);
    return document.toString(TO_STRING);
  }
  // Old clients (the JavaScript one among them) insist on these two fields.
  if (!document.has('apiVersion')) document.set('apiVersion', 'v1');
  if (!document.has('kind')) document.set('kind', 'Config');
  for (const list of NAMED_LISTS) {
    const sequence = namedList(document, list, options.source);
    const node = document.createNode(items[list]);
    const index = sequence.items.findIndex((item) => itemName(item) === entry.name);
    if (index === -1) sequence.items.push(node);
    else sequence.items[index] = node;
  }
  if (options.setCurrentContext) document.set('current-context', entry.name);
  return document.toString(TO_STRING);
}

/**
 * Removes the cluster, user and context called `name`, and clears the current context if it was
 * that one. Returns the new text, or undefined when the kubeconfig had none of them.
 */
export function removeKubeconfigEntry(text: string, name: string, source: string): string | undefined {
  const document = parseKubeconfig(text, source);
  if (document.contents === null) return undefined;
  let changed = false;
  for (const list of NAMED_LISTS) {
    const node = document.get(list, true);
    if (!isSeq(node)) continue;
    const kept = node.items.filter((item) => itemName(item) !== name);
    if (kept.length !== node.items.length) {
      node.items = kept;
      changed = true;
    }
  }
  if (document.get('current-context') === name) {
    document.set('current-context', '');
    changed = true;
  }
  return changed ? document.toString(TO_STRING) : undefined;
}

/** The names of the contexts a kubeconfig defines, and its current context. */
export function kubeconfigContexts(
  text: string,
  source: string,
): { contexts: string[]; currentContext: string } {
  const document = parseKubeconfig(text, source);
  const node = document.contents === null ? undefined : document.get('contexts', true);
  const contexts = isSeq(node) ? node.items.map(itemName).filter((name) => name !== undefined) : [];
  const current = document.contents === null ? undefined : document.get('current-context');
  return { contexts, currentContext: typeof current === 'string' ? current : '' };
}

function parseKubeconfig(text: string, source: string): Document {
  const document = parseDocument(text);
  const [error] = document.errors;
  if (error) {
    const firstLine = error.message.split('\n', 1)[0];
    throw invalidKubeconfigError(source, `it is not valid YAML: ${firstLine}`);
  }
  if (document.contents !== null && !isMap(document.contents)) {
    if (isScalar(document.contents) && document.contents.value === null) {
      document.contents = null;
    } else {
      throw invalidKubeconfigError(source, 'its top level is not a mapping');
    }
  }
  return document;
}

function namedList(document: Document, key: NamedList, source: string): YAMLSeq {
  const node = document.get(key, true);
  if (isSeq(node)) {
    // `contexts: []` would otherwise receive the entry in flow style, on one line.
    if (node.items.length === 0) node.flow = false;
    return node;
  }
  if (node === undefined || (isScalar(node) && node.value === null)) {
    const sequence = new YAMLSeq();
    document.set(key, sequence);
    return sequence;
  }
  throw invalidKubeconfigError(source, `its "${key}" field is not a list`);
}

function itemName(item: unknown): string | undefined {
  if (!isMap(item)) return undefined;
  const name = item.get('name');
  return typeof name === 'string' ? name : undefined;
}

function invalidKubeconfigError(source: string, problem: string): ClusterError {
  return new ClusterError(
    `cannot use kubeconfig ${source}: ${problem}`,
    'fix the file, or pass --kubeconfig PATH to use another one',
  );
}
