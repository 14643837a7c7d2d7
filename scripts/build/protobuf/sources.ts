// Where the protobuf facts come from: the Go API packages of Kubernetes 1.33 (the GA groups the
// apiserver serves, plus the apimachinery types they use), read from local git clones with `git show`.
// Nothing is downloaded.
import { execFileSync } from 'node:child_process';

/** The module tag read from each repository: staging repos tag Kubernetes 1.33.x as v0.33.x. */
export const MODULE_TAG = 'v0.33.9';

export interface SourcePackage {
  /** The repository under github.com/kubernetes. */
  repo: 'api' | 'apimachinery' | 'apiextensions-apiserver' | 'kube-aggregator';
  /** The package folder inside it. */
  dir: string;
}

export const SOURCE_PACKAGES: readonly SourcePackage[] = [
  ...[
    'core/v1',
    'apps/v1',
    'batch/v1',
    'autoscaling/v1',
    'autoscaling/v2',
    'policy/v1',
    'networking/v1',
    'rbac/v1',
    'coordination/v1',
    'discovery/v1',
    'events/v1',
    'storage/v1',
    'scheduling/v1',
    'node/v1',
    'certificates/v1',
    'admissionregistration/v1',
    'authentication/v1',
    'authorization/v1',
    'flowcontrol/v1',
  ].map((dir) => ({ repo: 'api' as const, dir })),
  { repo: 'apimachinery', dir: 'pkg/apis/meta/v1' },
  { repo: 'apimachinery', dir: 'pkg/runtime' },
  { repo: 'apimachinery', dir: 'pkg/util/intstr' },
  { repo: 'apimachinery', dir: 'pkg/api/resource' },
  { repo: 'apiextensions-apiserver', dir: 'pkg/apis/apiextensions/v1' },
  { repo: 'kube-aggregator', dir: 'pkg/apis/apiregistration/v1' },
];

/**
 * The git directory holding a clone of github.com/kubernetes/<repo>. TKUBE_K8S_GIT_DIRS overrides
 * the default layout with a pattern in which `{repo}` is replaced, e.g. `/src/{repo}/.git`.
 */
function gitDir(repo: string): string {
  const pattern = process.env.TKUBE_K8S_GIT_DIRS ?? '/work/.mirror/kubernetes+{repo}/repo';
  return pattern.replaceAll('{repo}', repo);
}

function git(repo: string, args: string[]): string {
  return execFileSync('git', ['--git-dir', gitDir(repo), ...args], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
}

export function readSourceFile(repo: string, path: string): string {
  return git(repo, ['show', `${MODULE_TAG}:${path}`]);
}

/** The Go files of a package that declare types (tests and generated code left out). */
export function listGoFiles(repo: string, dir: string): string[] {
  return git(repo, ['ls-tree', '--name-only', `${MODULE_TAG}:${dir}`])
    .split('\n')
    .filter((name) => name.endsWith('.go') && !name.endsWith('_test.go'))
    .filter((name) => name !== 'generated.pb.go' && !name.startsWith('zz_generated'))
    .map((name) => `${dir}/${name}`);
}
