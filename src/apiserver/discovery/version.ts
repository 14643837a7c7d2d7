// The /version body (apimachinery's version.Info). Since 1.31 it also reports the emulated version and
// the oldest version this server stays compatible with; by default those are the binary's minor and
// the minor before it.

import { TKUBE_VERSION } from '../../api/tkube-version.js';
import { KUBERNETES_GIT_VERSION, KUBERNETES_MAJOR, KUBERNETES_MINOR } from '../../api/version.js';

export interface VersionInfo {
  major: string;
  minor: string;
  emulationMajor: string;
  emulationMinor: string;
  minCompatibilityMajor: string;
  minCompatibilityMinor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

/** Facts of the tkube build; Kubernetes fills them with ldflags at build time. */
export interface BuildFacts {
  readonly gitCommit?: string;
  /** `clean` or `dirty`. */
  readonly gitTreeState?: string;
  /** ISO 8601 in UTC, seconds precision (`2025-04-23T10:52:31Z`). */
  readonly buildDate?: string;
}

const GOOS: Readonly<Record<string, string>> = { win32: 'windows', sunos: 'solaris' };
const GOARCH: Readonly<Record<string, string>> = {
  x64: 'amd64',
  ia32: '386',
  arm: 'arm',
  arm64: 'arm64',
  ppc64: 'ppc64le',
  s390x: 's390x',
  riscv64: 'riscv64',
  loong64: 'loong64',
  mipsel: 'mipsle',
};

/** `linux/amd64`: Go's GOOS/GOARCH spelling of where this process runs. */
export function goPlatform(platform: string = process.platform, arch: string = process.arch): string {
  return `${GOOS[platform] ?? platform}/${GOARCH[arch] ?? arch}`;
}

// What a Kubernetes binary reports when built without release ldflags.
const UNSET_BUILD_DATE = '1970-01-01T00:00:00Z';

export function versionInfo(build: BuildFacts = {}): VersionInfo {
  const minor = Number(KUBERNETES_MINOR);
  return {
    major: KUBERNETES_MAJOR,
    minor: KUBERNETES_MINOR,
    emulationMajor: KUBERNETES_MAJOR,
    emulationMinor: KUBERNETES_MINOR,
    minCompatibilityMajor: KUBERNETES_MAJOR,
    minCompatibilityMinor: String(minor - 1),
    gitVersion: KUBERNETES_GIT_VERSION,
    gitCommit: build.gitCommit ?? '',
    gitTreeState: build.gitTreeState ?? 'clean',
    buildDate: build.buildDate ?? UNSET_BUILD_DATE,
    // There is no Go toolchain: name the runtime and compiler that actually built and run tkube.
    goVersion: `node${process.versions.node} (tkube ${TKUBE_VERSION})`,
    compiler: 'tsc',
    platform: goPlatform(),
  };
}

/** The response body: kube-apiserver writes it with json.MarshalIndent and two-space indents. */
export function versionBody(info: VersionInfo = versionInfo()): string {
  return JSON.stringify(info, null, 2);
}
