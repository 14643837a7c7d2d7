// A cluster's name becomes a directory, a kubeconfig context (`tkube-<name>`) and, with nodes,
// Docker container and network names: Kubernetes' DNS-1123 label rules keep it safe in all of them.
import { utf8Length } from '../api/selectors/go-text.js';
import { isDns1123Subdomain, maxLengthMessage, regexMessage } from '../api/selectors/name-validation.js';
import { ClusterError } from './errors.js';

export const DEFAULT_CLUSTER_NAME = 'tkube';

const DNS1123_LABEL_FORMAT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL = new RegExp(`^${DNS1123_LABEL_FORMAT}$`);
const DNS1123_LABEL_MESSAGE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
export const DNS1123_LABEL_MAX_LENGTH = 63;

/** apimachinery's IsDNS1123Label: the problems with `value`, in Kubernetes' words; empty when valid. */
export function isDns1123Label(value: string): string[] {
  const problems: string[] = [];
  if (utf8Length(value) > DNS1123_LABEL_MAX_LENGTH) problems.push(maxLengthMessage(DNS1123_LABEL_MAX_LENGTH));
  if (!DNS1123_LABEL.test(value)) {
    // A valid subdomain that is not a valid label (length already checked) can only differ by dots.
    if (isDns1123Subdomain(value).length === 0) problems.push('must not contain dots');
    else problems.push(regexMessage(DNS1123_LABEL_MESSAGE, DNS1123_LABEL_FORMAT, 'my-name', '123-abc'));
  }
  return problems;
}

/** Throws a ClusterError naming every problem when `name` cannot be a cluster name. */
export function assertValidClusterName(name: string): void {
  const problems = isDns1123Label(name);
  if (problems.length > 0) {
    throw new ClusterError(`invalid cluster name ${JSON.stringify(name)}: ${problems.join(', ')}`);
  }
}

/** The kubeconfig cluster, user and context name of a tkube cluster. */
export function kubeconfigContextName(clusterName: string): string {
  return `tkube-${clusterName}`;
}

/** The cluster a command is about: --name, else the positional argument, else the default. */
export function clusterName(positional: string | undefined, flag: string | undefined): string {
  if (
    flag !== undefined &&
    positional !== undefined &&
    positional !== DEFAULT_CLUSTER_NAME &&
    positional !== flag
  ) {
    throw new Error(`two cluster names given (${positional} and --name ${flag}); give one`);
  }
  return flag ?? positional ?? DEFAULT_CLUSTER_NAME;
}
