import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import { ago, cellsOf } from './helpers.js';

function service(spec: Record<string, unknown>, status: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', namespace: 'default', creationTimestamp: ago({ h: 3 }) },
    spec,
    status,
  };
}

describe('service rows', () => {
  it('prints a ClusterIP service with several ports', () => {
    const dns = service({
      type: 'ClusterIP',
      clusterIP: '10.96.0.10',
      clusterIPs: ['10.96.0.10'],
      selector: { 'k8s-app': 'kube-dns' },
      ports: [
        { name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 },
        { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 53 },
        { name: 'metrics', port: 9153, protocol: 'TCP', targetPort: 9153 },
      ],
    });
    expect(cellsOf('', 'Service', dns)).toEqual([
      'web',
      'ClusterIP',
      '10.96.0.10',
      '<none>',
      '53/UDP,53/TCP,9153/TCP',
      '3h',
      'k8s-app=kube-dns',
    ]);
  });

  it('prints node ports after the port', () => {
    const nodePort = service({
      type: 'NodePort',
      clusterIPs: ['10.96.12.7'],
      selector: { app: 'web', tier: 'fe' },
      ports: [
        { port: 80, nodePort: 30080, protocol: 'TCP' },
        { port: 443, nodePort: 30001, protocol: 'TCP' },
      ],
    });
    expect(cellsOf('', 'Service', nodePort)).toEqual([
      'web',
      'NodePort',
      '10.96.12.7',
      '<none>',
      '80:30080/TCP,443:30001/TCP',
      '3h',
      'app=web,tier=fe',
    ]);
  });

  it('prints <pending> for a load balancer without an address, then its ingress points', () => {
    const spec = {
      type: 'LoadBalancer',
      clusterIPs: ['10.96.44.1'],
      ports: [{ port: 80, nodePort: 31380, protocol: 'TCP' }],
    };
    expect(cellsOf('', 'Service', service(spec)).slice(1, 5)).toEqual([
      'LoadBalancer',
      '10.96.44.1',
      '<pending>',
      '80:31380/TCP',
    ]);
    const ingress = {
      loadBalancer: { ingress: [{ ip: '172.18.0.3' }, { hostname: 'lb.example.com' }, { ip: '172.18.0.3' }] },
    };
    expect(cellsOf('', 'Service', service(spec, ingress))[3]).toBe('172.18.0.3,lb.example.com');
    const withExternal = service({ ...spec, externalIPs: ['192.0.2.10'] }, ingress);
    expect(cellsOf('', 'Service', withExternal)[3]).toBe('172.18.0.3,lb.example.com,192.0.2.10');
    expect(cellsOf('', 'Service', service({ ...spec, externalIPs: ['192.0.2.10'] }))[3]).toBe('192.0.2.10');
  });

  it('prints the external IPs of a ClusterIP service', () => {
    const external = service({
      type: 'ClusterIP',
      clusterIPs: ['10.96.0.20'],
      externalIPs: ['192.0.2.1', '192.0.2.2'],
    });
    expect(cellsOf('', 'Service', external).slice(3, 5)).toEqual(['192.0.2.1,192.0.2.2', '<none>']);
  });

  it('prints an ExternalName service', () => {
    const external = service({ type: 'ExternalName', externalName: 'db.example.com' });
    expect(cellsOf('', 'Service', external)).toEqual([
      'web',
      'ExternalName',
      '<none>',
      'db.example.com',
      '<none>',
      '3h',
      '<none>',
    ]);
  });

  it('prints None for a headless service and falls back to spec.clusterIP', () => {
    const headless = service({
      type: 'ClusterIP',
      clusterIP: 'None',
      clusterIPs: ['None'],
      selector: { app: 'db' },
    });
    expect(cellsOf('', 'Service', headless)[2]).toBe('None');
    const legacy = service({
      type: 'ClusterIP',
      clusterIP: '10.96.0.1',
      ports: [{ port: 443, protocol: 'TCP' }],
    });
    expect(cellsOf('', 'Service', legacy).slice(2, 5)).toEqual(['10.96.0.1', '<none>', '443/TCP']);
  });
});

describe('endpoints rows', () => {
  function endpoints(subsets: unknown[] | undefined): KubeObject {
    return {
      metadata: { name: 'web', creationTimestamp: ago({ m: 7, s: 30 }) },
      ...(subsets ? { subsets } : {}),
    };
  }

  it('prints address:port pairs', () => {
    const ep = endpoints([
      {
        addresses: [{ ip: '10.244.1.2' }, { ip: '10.244.2.3' }],
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      },
    ]);
    expect(cellsOf('', 'Endpoints', ep)).toEqual(['web', '10.244.1.2:8080,10.244.2.3:8080', '7m30s']);
  });

  it('shows three endpoints and counts the rest', () => {
    const ep = endpoints([
      {
        addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }],
        ports: [
          { port: 80, protocol: 'TCP' },
          { port: 443, protocol: 'TCP' },
        ],
      },
      { addresses: [{ ip: 'fd00::9' }], ports: [{ port: 80, protocol: 'TCP' }] },
    ]);
    expect(cellsOf('', 'Endpoints', ep)[1]).toBe('10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 2 more...');
  });

  it('prints bare addresses without ports, brackets IPv6 hosts, <none> without subsets', () => {
    expect(cellsOf('', 'Endpoints', endpoints([{ addresses: [{ ip: '10.0.0.5' }] }]))[1]).toBe('10.0.0.5');
    const v6 = endpoints([{ addresses: [{ ip: 'fd00::1' }], ports: [{ port: 80 }] }]);
    expect(cellsOf('', 'Endpoints', v6)[1]).toBe('[fd00::1]:80');
    expect(cellsOf('', 'Endpoints', endpoints(undefined))[1]).toBe('<none>');
    expect(cellsOf('', 'Endpoints', endpoints([{ notReadyAddresses: [{ ip: '10.0.0.6' }] }]))[1]).toBe('');
  });
});

describe('endpoint slice rows', () => {
  it('prints address type, ports and endpoints, <unset> when empty', () => {
    const slice: KubeObject = {
      metadata: { name: 'web-x7k2p', creationTimestamp: ago({ m: 1 }) },
      addressType: 'IPv4',
      ports: [{ name: 'http', port: 80 }, { name: 'named' }, {}, { port: 9000 }],
      endpoints: [{ addresses: ['10.244.1.2'] }, { addresses: ['10.244.2.3'] }],
    };
    expect(cellsOf('discovery.k8s.io', 'EndpointSlice', slice)).toEqual([
      'web-x7k2p',
      'IPv4',
      '80,named,* + 1 more...',
      '10.244.1.2,10.244.2.3',
      '60s',
    ]);
    const empty: KubeObject = { metadata: { name: 'e' }, addressType: 'IPv6' };
    expect(cellsOf('discovery.k8s.io', 'EndpointSlice', empty).slice(1, 4)).toEqual([
      'IPv6',
      '<unset>',
      '<unset>',
    ]);
  });
});

describe('ingress rows', () => {
  function ingress(spec: Record<string, unknown>, status: Record<string, unknown> = {}): KubeObject {
    return {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'site', creationTimestamp: ago({ d: 1 }) },
      spec,
      status,
    };
  }

  it('prints class, hosts, address and ports', () => {
    const site = ingress(
      {
        ingressClassName: 'nginx',
        tls: [{ hosts: ['a.example.com'], secretName: 'tls' }],
        rules: [{ host: 'a.example.com' }, { host: 'b.example.com' }],
      },
      { loadBalancer: { ingress: [{ ip: '172.18.0.2' }] } },
    );
    expect(cellsOf('networking.k8s.io', 'Ingress', site)).toEqual([
      'site',
      'nginx',
      'a.example.com,b.example.com',
      '172.18.0.2',
      '80, 443',
      '24h',
    ]);
  });

  it('prints * for rules without hosts and counts rules beyond three', () => {
    const catchAll = ingress({ defaultBackend: { service: { name: 'web', port: { number: 80 } } } });
    expect(cellsOf('networking.k8s.io', 'Ingress', catchAll).slice(1, 5)).toEqual(['<none>', '*', '', '80']);
    const many = ingress({ rules: ['a', 'b', 'c', 'd', 'e'].map((h) => ({ host: `${h}.example.com` })) });
    expect(cellsOf('networking.k8s.io', 'Ingress', many)[2]).toBe(
      'a.example.com,b.example.com,c.example.com + 2 more...',
    );
  });
});

describe('ingress class and network policy rows', () => {
  it('prints the controller and the parameters reference', () => {
    const ingressClass: KubeObject = {
      metadata: { name: 'nginx', creationTimestamp: ago({ h: 1 }) },
      spec: {
        controller: 'k8s.io/ingress-nginx',
        parameters: { apiGroup: 'k8s.example.com', kind: 'IngressParameters', name: 'external-lb' },
      },
    };
    expect(cellsOf('networking.k8s.io', 'IngressClass', ingressClass)).toEqual([
      'nginx',
      'k8s.io/ingress-nginx',
      'IngressParameters.k8s.example.com/external-lb',
      '60m',
    ]);
  });

  it('prints the pod selector, <none> for all pods', () => {
    const policy = (podSelector: unknown): KubeObject => ({
      metadata: { name: 'deny', creationTimestamp: ago({ s: 5 }) },
      spec: { podSelector, policyTypes: ['Ingress'] },
    });
    expect(cellsOf('networking.k8s.io', 'NetworkPolicy', policy({}))).toEqual(['deny', '<none>', '5s']);
    expect(cellsOf('networking.k8s.io', 'NetworkPolicy', policy({ matchLabels: { role: 'db' } }))[1]).toBe(
      'role=db',
    );
  });
});
