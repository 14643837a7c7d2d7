import type { ResourceInfo } from '../../api/resources/types.js';

export function listKind(info: ResourceInfo): string {
  return `${info.kind}List`;
}

export function apiVersionOf(info: { group: string; version: string }): string {
  return info.group === '' ? info.version : `${info.group}/${info.version}`;
}

/** A list response assembled from item texts, without parsing or re-encoding them. */
export function listBodyText(
  info: ResourceInfo,
  items: readonly string[],
  revision: number,
  continueToken: string | undefined,
): string {
  const metadata: Record<string, string> = { resourceVersion: String(revision) };
  if (continueToken) metadata.continue = continueToken;
  return `{"kind":"${listKind(info)}","apiVersion":"${apiVersionOf(info)}","metadata":${JSON.stringify(metadata)},"items":[${items.join(',')}]}`;
}
