import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  type KubeconfigEntry,
  kubeconfigContexts,
  mergeKubeconfigEntry,
  removeKubeconfigEntry,
  renderKubeconfig,
} from '../../../src/cluster/kubeconfig-document.js';

const entry: KubeconfigEntry = {
  name: 'tkube-dev',
  server: 'https://127.0.0.1:40123',
  certificateAuthorityData: 'Q0EtREFUQQ=='.repeat(40),
  clientCertificateData: 'Q0VSVA==',
  clientKeyData: 'S0VZ',
};

const USER_CONFIG = `# my clusters
apiVersion: v1
kind: Config
clusters:
  - name: prod
    cluster:
      server: https://prod.example.com
      certificate-authority: /etc/prod/ca.crt # keep me
contexts:
  - name: prod
    context: { cluster: prod, user: admin, namespace: web }
current-context: prod
preferences:
  colors: true
extensions:
  - name: my-extension
    extension: { answer: 42 }
users:
  - name: admin
    user:
      exec:
        apiVersion: client.authentication.k8s.io/v1
        command: get-token
`;

interface Named {
  name: string;
  [key: string]: unknown;
}
interface Config {
  clusters: Named[];
  users: Named[];
  contexts: Named[];
  'current-context': string;
  preferences: unknown;
  extensions?: unknown;
  apiVersion: string;
  kind: string;
}

describe('kubeconfig documents', () => {
  it('renders a standalone kubeconfig for one cluster', () => {
    const config = parse(renderKubeconfig(entry)) as Config;
    expect(config).toEqual({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'tkube-dev',
          cluster: { server: entry.server, 'certificate-authority-data': entry.certificateAuthorityData },
        },
      ],
      contexts: [{ name: 'tkube-dev', context: { cluster: 'tkube-dev', user: 'tkube-dev' } }],
      'current-context': 'tkube-dev',
      preferences: {},
      users: [
        {
          name: 'tkube-dev',
          user: {
            'client-certificate-data': entry.clientCertificateData,
            'client-key-data': entry.clientKeyData,
          },
        },
      ],
    });
    // Certificate data is never folded over several lines.
    expect(renderKubeconfig(entry)).toContain(
      `certificate-authority-data: ${entry.certificateAuthorityData}\n`,
    );
  });

  it('merges into a new or empty file as a complete kubeconfig', () => {
    for (const text of [undefined, '', '# nothing yet\n']) {
      const config = parse(
        mergeKubeconfigEntry(text, entry, { setCurrentContext: true, source: 'f' }),
      ) as Config;
      expect(config.kind).toBe('Config');
      expect(config['current-context']).toBe('tkube-dev');
      expect(config.clusters.map((c) => c.name)).toEqual(['tkube-dev']);
    }
  });

  it('keeps every other entry, preference, extension and comment of an existing file', () => {
    const merged = mergeKubeconfigEntry(USER_CONFIG, entry, { setCurrentContext: true, source: 'f' });
    const config = parse(merged) as Config;
    expect(config.clusters.map((c) => c.name)).toEqual(['prod', 'tkube-dev']);
    expect(config.users.map((u) => u.name)).toEqual(['admin', 'tkube-dev']);
    expect(config.contexts.map((c) => c.name)).toEqual(['prod', 'tkube-dev']);
    expect(config.contexts[0]).toEqual({
      name: 'prod',
      context: { cluster: 'prod', user: 'admin', namespace: 'web' },
    });
    expect(config.users[0]!.user).toEqual({
      exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'get-token' },
    });
    expect(config.preferences).toEqual({ colors: true });
    expect(config.extensions).toEqual([{ name: 'my-extension', extension: { answer: 42 } }]);
    expect(config['current-context']).toBe('tkube-dev');
    expect(merged).toContain('# my clusters');
    expect(merged).toContain('# keep me');
  });

  it('leaves the current context alone when asked to', () => {
    const merged = mergeKubeconfigEntry(USER_CONFIG, entry, { setCurrentContext: false, source: 'f' });
    expect(kubeconfigContexts(merged, 'f')).toEqual({
      contexts: ['prod', 'tkube-dev'],
      currentContext: 'prod',
    });
  });

  it('replaces an entry of the same name instead of adding a second', () => {
    const once = mergeKubeconfigEntry(USER_CONFIG, entry, { setCurrentContext: true, source: 'f' });
    const twice = mergeKubeconfigEntry(
      once,
      { ...entry, server: 'https://127.0.0.1:50000' },
      {
        setCurrentContext: true,
        source: 'f',
      },
    );
    const config = parse(twice) as Config;
    expect(config.clusters.map((c) => c.name)).toEqual(['prod', 'tkube-dev']);
    expect(config.clusters[1]!.cluster).toMatchObject({ server: 'https://127.0.0.1:50000' });
  });

  it('fills in lists that are missing or null', () => {
    const merged = mergeKubeconfigEntry('clusters:\ncurrent-context: ""\n', entry, {
      setCurrentContext: true,
      source: 'f',
    });
    const config = parse(merged) as Config;
    expect(config.clusters).toHaveLength(1);
    expect(config.users).toHaveLength(1);
    expect(config.apiVersion).toBe('v1');
  });

  it('removes only its own entries and unsets the current context that pointed at them', () => {
    const merged = mergeKubeconfigEntry(USER_CONFIG, entry, { setCurrentContext: true, source: 'f' });
    const removed = removeKubeconfigEntry(merged, 'tkube-dev', 'f');
    expect(removed).toBeDefined();
    const config = parse(removed!) as Config;
    expect(config.clusters.map((c) => c.name)).toEqual(['prod']);
    expect(config.users.map((u) => u.name)).toEqual(['admin']);
    expect(config.contexts.map((c) => c.name)).toEqual(['prod']);
    expect(config['current-context']).toBe('');
    expect(config.extensions).toEqual([{ name: 'my-extension', extension: { answer: 42 } }]);
    expect(removed).toContain('# keep me');
  });

  it('keeps a current context that points elsewhere, and reports when nothing was there', () => {
    const merged = mergeKubeconfigEntry(USER_CONFIG, entry, { setCurrentContext: false, source: 'f' });
    const removed = removeKubeconfigEntry(merged, 'tkube-dev', 'f')!;
    expect(kubeconfigContexts(removed, 'f').currentContext).toBe('prod');
    expect(removeKubeconfigEntry(USER_CONFIG, 'tkube-dev', 'f')).toBeUndefined();
    expect(removeKubeconfigEntry('', 'tkube-dev', 'f')).toBeUndefined();
  });

  it('refuses a file that is not a kubeconfig, naming it', () => {
    expect(() =>
      mergeKubeconfigEntry('clusters: [', entry, { setCurrentContext: true, source: '/x/config' }),
    ).toThrow(
      /^cannot use kubeconfig \/x\/config: it is not valid YAML: .*; fix the file, or pass --kubeconfig PATH/,
    );
    expect(() => mergeKubeconfigEntry('- a\n- b\n', entry, { setCurrentContext: true, source: 'f' })).toThrow(
      'its top level is not a mapping',
    );
    expect(() =>
      mergeKubeconfigEntry('clusters: 3\n', entry, { setCurrentContext: true, source: 'f' }),
    ).toThrow('its "clusters" field is not a list');
  });
});
