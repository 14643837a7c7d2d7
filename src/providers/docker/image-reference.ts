// Image names as containerd stores them after `ctr images import` of a `docker save` archive:
// Docker's short forms expanded (busybox → docker.io/library/busybox:latest).

/** The fully qualified form of a docker image reference (name[:tag][@digest]). */
export function normalizeImageReference(reference: string): string {
  let name = reference;
  let digest = '';
  const at = name.indexOf('@');
  if (at !== -1) {
    digest = name.slice(at);
    name = name.slice(0, at);
  }
  let tag = '';
  const colon = name.lastIndexOf(':');
  if (colon > name.lastIndexOf('/')) {
    tag = name.slice(colon);
    name = name.slice(0, colon);
  }
  const slash = name.indexOf('/');
  const first = slash === -1 ? '' : name.slice(0, slash);
  const hasRegistry = first.includes('.') || first.includes(':') || first === 'localhost';
  if (!hasRegistry) name = slash === -1 ? `docker.io/library/${name}` : `docker.io/${name}`;
  if (tag === '' && digest === '') tag = ':latest';
  return `${name}${tag}${digest}`;
}

/** `name` with `:latest` added when it has neither tag nor digest (what `docker save` should get). */
export function withDefaultTag(reference: string): string {
  if (reference.includes('@')) return reference;
  const colon = reference.lastIndexOf(':');
  return colon > reference.lastIndexOf('/') ? reference : `${reference}:latest`;
}
