// The parameters kube-apiserver's routes declare: path segments, `pretty`, and one query parameter per
// field of the options type a verb decodes (ListOptions, DeleteOptions, PodLogOptions, ...). Names and
// types are Kubernetes'; the descriptions are tkube's own words.

export type ParameterType = 'string' | 'integer' | 'boolean';

export interface RouteParameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'body';
  readonly description: string;
  readonly required: boolean;
  /** Path and query parameters only. */
  readonly type?: ParameterType;
  /** Body parameters only: the definition the body follows. */
  readonly definition?: string;
}

function query(name: string, type: ParameterType, description: string): RouteParameter {
  return { name, in: 'query', type, description, required: false };
}

function pathParameter(name: string, description: string): RouteParameter {
  return { name, in: 'path', type: 'string', description, required: true };
}

export function bodyParameter(definition: string, required: boolean): RouteParameter {
  return { name: 'body', in: 'body', description: '', required, definition };
}

export const NAMESPACE_PARAMETER = pathParameter(
  'namespace',
  'namespace of the object: the scope its name is unique in and access is granted for',
);

export function nameParameter(kind: string): RouteParameter {
  return pathParameter('name', `name of the ${kind}`);
}

export const PROXY_PATH_PARAMETER = pathParameter('path', 'path to forward the request to');

export const PRETTY = query(
  'pretty',
  'string',
  "If 'true', the response is indented for reading. Browsers and command-line HTTP tools such as curl and wget get indented output by default.",
);

const DRY_RUN = query(
  'dryRun',
  'string',
  'When set, the request is checked and admitted but nothing is stored. The only valid value is All, which runs every stage except persistence; other values are rejected.',
);

const FIELD_VALIDATION = query(
  'fieldValidation',
  'string',
  'What to do with unknown or duplicate fields in the request body: Ignore drops them silently (keeping the last of duplicates), Warn drops them and reports each in a Warning header (the default), Strict rejects the request with a BadRequest error listing them.',
);

const FIELD_MANAGER = query(
  'fieldManager',
  'string',
  'Name of the actor making the change, recorded in managedFields. At most 128 printable characters.',
);

const FIELD_MANAGER_FOR_PATCH = query(
  'fieldManager',
  'string',
  'Name of the actor making the change, recorded in managedFields. At most 128 printable characters. Required for apply patches (application/apply-patch+yaml), optional for the other patch types.',
);

const FORCE = query(
  'force',
  'boolean',
  'Apply patches only: take ownership of fields other managers own instead of failing with a conflict. Must be unset for other patch types.',
);

/** CreateOptions and UpdateOptions. */
export const WRITE_OPTIONS: readonly RouteParameter[] = [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION];

export const PATCH_OPTIONS: readonly RouteParameter[] = [
  DRY_RUN,
  FIELD_MANAGER_FOR_PATCH,
  FIELD_VALIDATION,
  FORCE,
];

export const DELETE_OPTIONS: readonly RouteParameter[] = [
  DRY_RUN,
  query(
    'gracePeriodSeconds',
    'integer',
    "Seconds the object gets to terminate before it is removed; 0 deletes immediately. Unset uses the resource's default grace period.",
  ),
  query(
    'ignoreStoreReadErrorWithClusterBreakingPotential',
    'boolean',
    'Deletes an object that can no longer be read from storage (it fails to decrypt or decode), skipping finalizers and preconditions. Dependent workloads may break; off unless explicitly set.',
  ),
  query(
    'orphanDependents',
    'boolean',
    'Deprecated in favour of propagationPolicy, and not to be combined with it: true orphans the dependents, false deletes them.',
  ),
  query(
    'propagationPolicy',
    'string',
    'How the garbage collector treats dependents: Orphan leaves them, Background deletes them after the owner, Foreground deletes them before the owner. Defaults come from the finalizers present and the resource.',
  ),
];

const ALLOW_WATCH_BOOKMARKS = query(
  'allowWatchBookmarks',
  'boolean',
  'Asks a watch to send BOOKMARK events carrying the latest resourceVersion. The server decides when to send them, if at all; ignored for plain lists.',
);

const WATCH = query(
  'watch',
  'boolean',
  'Streams ADDED, MODIFIED and DELETED events instead of returning the list. Combine with resourceVersion to start from a known point.',
);

/** ListOptions, minus `watch` and `allowWatchBookmarks`, which a collection delete does not take. */
const LIST_SELECTION: readonly RouteParameter[] = [
  query(
    'continue',
    'string',
    'Token from the metadata.continue of a previous page, asking for the next one with the same query. An expired token gets 410 Gone with a fresh token that continues from the current state. Not for watches.',
  ),
  query(
    'fieldSelector',
    'string',
    'Only objects whose fields match this selector. Empty matches everything.',
  ),
  query(
    'labelSelector',
    'string',
    'Only objects whose labels match this selector. Empty matches everything.',
  ),
  query(
    'limit',
    'integer',
    'Largest number of items to return. When more remain, metadata.continue holds a token for the next page; all pages together are one consistent snapshot. Not for watches.',
  ),
  query(
    'resourceVersion',
    'string',
    'Constrains which resource version the result may be served from; see the API concepts documentation on resource versions. Unset by default.',
  ),
  query(
    'resourceVersionMatch',
    'string',
    'How resourceVersion applies to a list: Exact or NotOlderThan. Recommended whenever resourceVersion is set. Unset by default.',
  ),
  query(
    'sendInitialEvents',
    'boolean',
    'With watch=true, starts the stream with synthetic ADDED events for the current objects, then a BOOKMARK annotated k8s.io/initial-events-end: "true". Requires resourceVersionMatch=NotOlderThan.',
  ),
  query(
    'timeoutSeconds',
    'integer',
    'Ends the list or watch call after this many seconds, whatever its activity.',
  ),
];

export const LIST_OPTIONS: readonly RouteParameter[] = [ALLOW_WATCH_BOOKMARKS, ...LIST_SELECTION, WATCH];

export const DELETE_COLLECTION_OPTIONS: readonly RouteParameter[] = [...DELETE_OPTIONS, ...LIST_SELECTION];

const STREAMS = {
  stderr: (what: string) => query('stderr', 'boolean', `Whether to stream the standard error of ${what}.`),
  stdin: (what: string) => query('stdin', 'boolean', `Whether to stream the standard input of ${what}.`),
  stdout: (what: string) => query('stdout', 'boolean', `Whether to stream the standard output of ${what}.`),
  tty: (what: string) =>
    query('tty', 'boolean', `Whether ${what} runs with a terminal; stderr is then merged into stdout.`),
};

const PROXY_OPTIONS = [query('path', 'string', 'Path to forward the request to.')];

/** The query parameters of each options kind a subresource decodes (`connect` and `log`). */
export const OPTIONS_PARAMETERS: Readonly<Record<string, readonly RouteParameter[]>> = {
  PodAttachOptions: [
    query(
      'container',
      'string',
      'Container to attach to. Defaults to the only container of a single-container pod.',
    ),
    STREAMS.stderr('the attached container'),
    STREAMS.stdin('the attached container'),
    STREAMS.stdout('the attached container'),
    STREAMS.tty('the attached container'),
  ],
  PodExecOptions: [
    query('command', 'string', 'The command to run, one argument per value. Not run in a shell.'),
    query(
      'container',
      'string',
      'Container to run the command in. Defaults to the only container of a single-container pod.',
    ),
    STREAMS.stderr('the command'),
    STREAMS.stdin('the command'),
    STREAMS.stdout('the command'),
    STREAMS.tty('the command'),
  ],
  PodPortForwardOptions: [query('ports', 'integer', 'Pod ports to forward; one stream pair per port.')],
  PodProxyOptions: PROXY_OPTIONS,
  NodeProxyOptions: PROXY_OPTIONS,
  ServiceProxyOptions: PROXY_OPTIONS,
  PodLogOptions: [
    query(
      'container',
      'string',
      'Container whose log to read. Defaults to the only container of a single-container pod.',
    ),
    query('follow', 'boolean', 'Keeps the stream open and sends new lines as they are written.'),
    query(
      'insecureSkipTLSVerifyBackend',
      'boolean',
      "Reads the log without verifying the kubelet's serving certificate. The connection to the kubelet stays encrypted, but a man in the middle could alter the log.",
    ),
    query('limitBytes', 'integer', 'Stops after this many bytes of log, possibly mid-line.'),
    query('previous', 'boolean', 'Reads the log of the previous, terminated instance of the container.'),
    query('sinceSeconds', 'integer', 'Only lines written in the last this many seconds.'),
    query('stream', 'string', 'Which stream to read: All (the default), Stdout or Stderr.'),
    query('tailLines', 'integer', 'Only this many lines from the end of the log.'),
    query('timestamps', 'boolean', 'Prefixes every line with its RFC 3339 timestamp.'),
  ],
};
