// The local registry's texts: containerd's hosts.toml sends localhost:<port> pulls to the
// registry container over plain HTTP, and the KEP-1755 ConfigMap names the host to push to.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  ownedRegistryName,
  registryHostingConfigMap,
  registryHostsPath,
  registryHostsToml,
} from '../../../src/cluster/registry/local-registry.js';

const registry = { name: 'dev-registry', port: 5001, shared: false };

describe('local registry', () => {
  it("names a cluster's own registry after the cluster", () => {
    expect(ownedRegistryName('dev')).toBe('dev-registry');
  });

  it('maps localhost:<port> to the registry container in containerd hosts.toml, under config_path', () => {
    expect(registryHostsPath(registry)).toBe('/etc/containerd/certs.d/localhost:5001/hosts.toml');
    const toml = registryHostsToml({ ...registry, port: 5005 });
    expect(toml).toMatch(/^server = "http:\/\/localhost:5005"$/m);
    expect(toml).toMatch(/^\[host\."http:\/\/dev-registry:5000"\]$/m);
    expect(toml).toMatch(/^ {2}capabilities = \["pull", "resolve"\]$/m);
  });

  it('publishes localRegistryHosting.v1 in kube-public as KEP-1755 spells it', () => {
    const configMap = registryHostingConfigMap(registry);
    expect(configMap.metadata).toEqual({ name: 'local-registry-hosting', namespace: 'kube-public' });
    expect(Object.keys(configMap.data ?? {})).toEqual(['localRegistryHosting.v1']);
    expect(parse(configMap.data!['localRegistryHosting.v1']!)).toEqual({
      host: 'localhost:5001',
      hostFromContainerRuntime: 'dev-registry:5000',
      help: 'https://kind.sigs.k8s.io/docs/user/local-registry/',
    });
  });
});
