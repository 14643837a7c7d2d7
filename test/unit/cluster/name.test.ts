import { describe, expect, it } from 'vitest';
import { ClusterError } from '../../../src/cluster/errors.js';
import { assertValidClusterName, isDns1123Label, kubeconfigContextName } from '../../../src/cluster/name.js';

const LABEL_MESSAGE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

describe('cluster names', () => {
  it('accepts DNS-1123 labels', () => {
    for (const name of ['a', 'tkube', 'dev-1', '123', 'a'.repeat(63)])
      expect(isDns1123Label(name)).toEqual([]);
  });

  it("rejects what apimachinery's IsDNS1123Label rejects, in its words", () => {
    expect(isDns1123Label('Dev')).toEqual([LABEL_MESSAGE]);
    expect(isDns1123Label('-dev')).toEqual([LABEL_MESSAGE]);
    expect(isDns1123Label('dev_1')).toEqual([LABEL_MESSAGE]);
    expect(isDns1123Label('')).toEqual([LABEL_MESSAGE]);
    expect(isDns1123Label('my.cluster')).toEqual(['must not contain dots']);
    expect(isDns1123Label('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
  });

  it('reports an invalid name as one ClusterError line', () => {
    expect(() => assertValidClusterName('Bad_Name')).toThrow(ClusterError);
    expect(() => assertValidClusterName('Bad_Name')).toThrow(
      `invalid cluster name "Bad_Name": ${LABEL_MESSAGE}`,
    );
    expect(() => assertValidClusterName('good')).not.toThrow();
  });

  it('names the kubeconfig context tkube-<name>', () => {
    expect(kubeconfigContextName('dev')).toBe('tkube-dev');
  });
});
