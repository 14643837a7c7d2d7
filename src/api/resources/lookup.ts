// Look-ups over the built-in table. BUILTIN_RESOURCES is already in discovery order (core, then
// the groups of /apis, preferred version first), so "first match" means "highest priority".

import { API_GROUPS, BUILTIN_RESOURCES, CORE_GROUP } from './builtin.js';
import type { GroupInfo, ResourceInfo, SubresourceInfo } from './types.js';

const byGroupVersionResource = new Map<string, ResourceInfo>();
const byGroupVersion = new Map<string, ResourceInfo[]>();
for (const info of BUILTIN_RESOURCES) {
  byGroupVersionResource.set(`${info.group}/${info.version}/${info.resource}`, info);
  const key = `${info.group}/${info.version}`;
  const list = byGroupVersion.get(key);
  if (list) list.push(info);
  else byGroupVersion.set(key, [info]);
}

const groupsByName = new Map<string, GroupInfo>([CORE_GROUP, ...API_GROUPS].map((g) => [g.name, g]));

/** The resource `resource` of `group`/`version`, if that group-version serves it. */
export function findResource(group: string, version: string, resource: string): ResourceInfo | undefined {
  return byGroupVersionResource.get(`${group}/${version}/${resource}`);
}

/** A subresource such as `pods/status`, given the parent's coordinates and the part after the slash. */
export function findSubresource(
  group: string,
  version: string,
  resource: string,
  subresource: string,
): SubresourceInfo | undefined {
  return findResource(group, version, resource)?.subresources.find((sub) => sub.name === subresource);
}

/** The resources one group-version serves, sorted by name; empty when it is not served. */
export function resourcesOf(group: string, version: string): readonly ResourceInfo[] {
  return byGroupVersion.get(`${group}/${version}`) ?? [];
}

/** Whether `group`/`version` is served (`''`/`v1` is the core group). */
export function isServed(group: string, version: string): boolean {
  return byGroupVersion.has(`${group}/${version}`);
}

/** The group `name` (`''` for core), or undefined when it is not served. */
export function findGroup(name: string): GroupInfo | undefined {
  return groupsByName.get(name);
}

/** The groups of `/apis` in the order it lists them (the core group is not among them). */
export function listApiGroups(): readonly GroupInfo[] {
  return API_GROUPS;
}

/** The version a group prefers (`autoscaling` → `v2`), or undefined when the group is not served. */
export function preferredVersion(group: string): string | undefined {
  return groupsByName.get(group)?.versions[0];
}

/** Every served group-version as `apiVersion` spells it (`v1`, `apps/v1`, ...), in discovery order. */
export function servedGroupVersions(): string[] {
  return [CORE_GROUP, ...API_GROUPS].flatMap((g) =>
    g.versions.map((v) => (g.name === '' ? v : `${g.name}/${v}`)),
  );
}

/**
 * The resource holding `kind` in `group`: at `version` when given, else at the group's preferred
 * version that serves the kind.
 */
export function findByKind(group: string, kind: string, version?: string): ResourceInfo | undefined {
  return BUILTIN_RESOURCES.find(
    (info) =>
      info.group === group && info.kind === kind && (version === undefined || info.version === version),
  );
}

/** One resource per group, preferred version first, for every resource in `category` (`all`, ...). */
export function resourcesInCategory(category: string): ResourceInfo[] {
  const seen = new Set<string>();
  const out: ResourceInfo[] = [];
  for (const info of BUILTIN_RESOURCES) {
    const groupResource = `${info.resource}.${info.group}`;
    if (!info.categories.includes(category) || seen.has(groupResource)) continue;
    seen.add(groupResource);
    out.push(info);
  }
  return out;
}

interface ResourceArg {
  readonly name: string;
  readonly group?: string;
  readonly version?: string;
}

// `deployments.v1.apps` may be resource.version.group or resource.group with group `v1.apps`;
// like kubectl, the fully specified reading is tried first.
function readArg(arg: string): ResourceArg[] {
  const lower = arg.toLowerCase();
  const dot = lower.indexOf('.');
  if (dot < 0) return [{ name: lower }];
  const name = lower.slice(0, dot);
  const rest = lower.slice(dot + 1);
  const readings: ResourceArg[] = [];
  const secondDot = rest.indexOf('.');
  if (secondDot > 0) {
    readings.push({ name, version: rest.slice(0, secondDot), group: rest.slice(secondDot + 1) });
  }
  readings.push({ name, group: rest });
  return readings;
}

function inScope(info: ResourceInfo, reading: ResourceArg): boolean {
  if (reading.group !== undefined && info.group !== reading.group) return false;
  return reading.version === undefined || info.version === reading.version;
}

/**
 * Every resource a kubectl-style argument names, highest priority first. The argument is a plural,
 * singular, short name or kind, ignoring case, optionally qualified as `name.group` or
 * `name.version.group`. Plural and singular names win over short names, as in kubectl.
 */
export function resolveResourceCandidates(arg: string): ResourceInfo[] {
  for (const reading of readArg(arg)) {
    const scoped = BUILTIN_RESOURCES.filter((info) => inScope(info, reading));
    const byName = scoped.filter(
      (info) =>
        info.resource === reading.name ||
        info.singularName === reading.name ||
        info.kind.toLowerCase() === reading.name,
    );
    if (byName.length > 0) return byName;
    const byShortName = scoped.filter((info) => info.shortNames.includes(reading.name));
    if (byShortName.length > 0) return byShortName;
  }
  return [];
}

/** The resource a kubectl-style argument resolves to (`po`, `Deployment`, `hpa`, `ingresses.networking.k8s.io`). */
export function resolveResource(arg: string): ResourceInfo | undefined {
  return resolveResourceCandidates(arg)[0];
}

/**
 * The warning kube-apiserver 1.33 attaches to every request for a deprecated resource
 * (`Warning: 299 - "..."`), keyed `group/version/resource`.
 */
const DEPRECATION_WARNINGS: Readonly<Record<string, string>> = {
  '/v1/endpoints': 'v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice',
};

export function deprecationWarning(group: string, version: string, resource: string): string | undefined {
  return DEPRECATION_WARNINGS[`${group}/${version}/${resource}`];
}
