// Kubernetes' semantic version functions (k8s.io/apiserver/pkg/cel/library/semverlib.go, 1.33+):
// semver(), isSemver() (optionally normalizing `v1.2` to `1.2.0`), major/minor/patch and
// precedence comparisons as semver.org defines them.
import type { Environment } from '@marcbachmann/cel-js';

/** A semantic version as a CEL value (`kubernetes.Semver`). */
export class CelSemver {
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly pre: readonly string[],
  ) {}

  compare(other: CelSemver): number {
    for (const key of ['major', 'minor', 'patch'] as const)
      if (this[key] !== other[key]) return this[key] < other[key] ? -1 : 1;
    // A version without pre-release identifiers has the higher precedence.
    if (this.pre.length === 0 || other.pre.length === 0) return Math.sign(other.pre.length - this.pre.length);
    for (let i = 0; i < Math.min(this.pre.length, other.pre.length); i++) {
      const a = this.pre[i]!;
      const b = other.pre[i]!;
      if (a === b) continue;
      const aNumeric = /^\d+$/.test(a);
      const bNumeric = /^\d+$/.test(b);
      if (aNumeric && bNumeric) return BigInt(a) < BigInt(b) ? -1 : 1;
      if (aNumeric !== bNumeric) return aNumeric ? -1 : 1;
      return a < b ? -1 : 1;
    }
    return Math.sign(this.pre.length - other.pre.length);
  }
}

const NUMBER = /^(0|[1-9]\d*)$/;
const IDENTIFIER = /^[0-9A-Za-z-]+$/;

/** Parses a strict semantic version (blang/semver's Parse), throwing its complaint. */
export function parseSemver(text: string): CelSemver {
  const parts = text.split('.');
  if (parts.length < 3) throw new Error('No Major.Minor.Patch elements found');
  const [major, minor] = parts;
  let rest = parts.slice(2).join('.');
  let build = '';
  const plus = rest.indexOf('+');
  if (plus >= 0) [rest, build] = [rest.slice(0, plus), rest.slice(plus + 1)];
  let pre: string[] = [];
  const dash = rest.indexOf('-');
  let patch = rest;
  if (dash >= 0) [patch, pre] = [rest.slice(0, dash), rest.slice(dash + 1).split('.')];
  for (const [name, value] of [
    ['Major', major!],
    ['Minor', minor!],
    ['Patch', patch],
  ] as const) {
    if (!/^\d+$/.test(value))
      throw new Error(`Invalid character(s) found in ${name.toLowerCase()} number ${JSON.stringify(value)}`);
    if (!NUMBER.test(value))
      throw new Error(`${name} number must not contain leading zeroes ${JSON.stringify(value)}`);
  }
  for (const id of pre) {
    if (id === '') throw new Error('Prerelease is empty');
    if (!IDENTIFIER.test(id))
      throw new Error(`Invalid character(s) found in prerelease ${JSON.stringify(id)}`);
    if (/^\d+$/.test(id) && !NUMBER.test(id))
      throw new Error(`Numeric PreRelease version must not contain leading zeroes ${JSON.stringify(id)}`);
  }
  if (build !== '' && !build.split('.').every((id) => IDENTIFIER.test(id)))
    throw new Error(`Invalid character(s) found in build meta data ${JSON.stringify(build)}`);
  return new CelSemver(BigInt(major!), BigInt(minor!), BigInt(patch), pre);
}

/** normalizeAndParse: drops a leading `v` and leading zeros, fills in a missing minor and patch. */
export function parseSemverNormalized(text: string): CelSemver {
  const parts = text.replace(/^v/, '').split('.');
  const head = parts.slice(0, 2);
  const tail = parts.slice(2).join('.');
  const pieces = parts.length > 2 ? [...head, tail] : head;
  const trimmed = pieces.map((p) => {
    if (p.length <= 1) return p;
    const t = p.replace(/^0+/, '');
    return t === '' || !/^\d/.test(t) ? `0${t}` : t;
  });
  if (trimmed.length < 3) {
    if (/[+-]/.test(trimmed[trimmed.length - 1]!))
      throw new Error('short version cannot contain PreRelease/Build meta data');
    while (trimmed.length < 3) trimmed.push('0');
  }
  return parseSemver(trimmed.join('.'));
}

export function registerSemver(env: Environment): void {
  const T = 'kubernetes.Semver';
  const valid = (parse: (t: string) => CelSemver, text: string): boolean => {
    try {
      parse(text);
      return true;
    } catch {
      return false;
    }
  };
  env.registerType(T, CelSemver);
  env.registerFunction(`semver(string): ${T}`, (text: string) => parseSemver(text));
  env.registerFunction(`semver(string, bool): ${T}`, (text: string, normalize: boolean) =>
    normalize ? parseSemverNormalized(text) : parseSemver(text),
  );
  env.registerFunction('isSemver(string): bool', (text: string) => valid(parseSemver, text));
  env.registerFunction('isSemver(string, bool): bool', (text: string, normalize: boolean) =>
    valid(normalize ? parseSemverNormalized : parseSemver, text),
  );
  env.registerFunction(`${T}.major(): int`, (v: CelSemver) => v.major);
  env.registerFunction(`${T}.minor(): int`, (v: CelSemver) => v.minor);
  env.registerFunction(`${T}.patch(): int`, (v: CelSemver) => v.patch);
  env.registerFunction(`${T}.isGreaterThan(${T}): bool`, (a: CelSemver, b: CelSemver) => a.compare(b) > 0);
  env.registerFunction(`${T}.isLessThan(${T}): bool`, (a: CelSemver, b: CelSemver) => a.compare(b) < 0);
  env.registerFunction(`${T}.compareTo(${T}): int`, (a: CelSemver, b: CelSemver) => BigInt(a.compare(b)));
  env.registerOperator(`${T} == ${T}`, (a: CelSemver, b: CelSemver) => a.compare(b) === 0);
}
