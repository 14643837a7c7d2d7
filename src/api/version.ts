/** The Kubernetes minor whose API tkube serves, reported by `/version` and `tkube version`. */
export const KUBERNETES_MAJOR = '1';
export const KUBERNETES_MINOR = '33';
export const KUBERNETES_GIT_VERSION = `v${KUBERNETES_MAJOR}.${KUBERNETES_MINOR}.0`;
