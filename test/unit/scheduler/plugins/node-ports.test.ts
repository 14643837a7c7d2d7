import { describe, expect, it } from 'vitest';
import type { ContainerPort } from '../../../../src/api/types/core-v1.generated.js';
import { NodePorts } from '../../../../src/scheduler/plugins/node-ports.js';
import { filterAll, node, nodeInfo, pod } from '../fixtures.js';

const BUSY = "node(s) didn't have free ports for the requested pod ports";

function withPorts(name: string, ports: ContainerPort[]) {
  return pod(name, { containers: [{ name: 'c', image: 'x', ports }] });
}

describe('NodePorts', () => {
  const cases: { name: string; used: ContainerPort[]; wanted: ContainerPort[]; want: string }[] = [
    {
      name: 'no host ports',
      used: [{ containerPort: 80, hostPort: 8080 }],
      wanted: [{ containerPort: 80 }],
      want: '',
    },
    {
      name: 'free port',
      used: [{ containerPort: 80, hostPort: 8080 }],
      wanted: [{ containerPort: 80, hostPort: 8081 }],
      want: '',
    },
    {
      name: 'same port, default ip and protocol',
      used: [{ containerPort: 80, hostPort: 8080 }],
      wanted: [{ containerPort: 1, hostPort: 8080 }],
      want: BUSY,
    },
    {
      name: 'same port, other protocol',
      used: [{ containerPort: 80, hostPort: 8080, protocol: 'UDP' }],
      wanted: [{ containerPort: 80, hostPort: 8080, protocol: 'TCP' }],
      want: '',
    },
    {
      name: 'same port on different specific IPs',
      used: [{ containerPort: 80, hostPort: 8080, hostIP: '10.0.0.1' }],
      wanted: [{ containerPort: 80, hostPort: 8080, hostIP: '10.0.0.2' }],
      want: '',
    },
    {
      name: '0.0.0.0 conflicts with any IP',
      used: [{ containerPort: 80, hostPort: 8080, hostIP: '10.0.0.1' }],
      wanted: [{ containerPort: 80, hostPort: 8080, hostIP: '0.0.0.0' }],
      want: BUSY,
    },
    {
      name: 'a specific IP conflicts with a used 0.0.0.0',
      used: [{ containerPort: 80, hostPort: 8080 }],
      wanted: [{ containerPort: 80, hostPort: 8080, hostIP: '10.0.0.1' }],
      want: BUSY,
    },
  ];
  for (const testCase of cases) {
    it(testCase.name, () => {
      const existing = withPorts('existing', testCase.used);
      const result = filterAll(new NodePorts(), withPorts('p', testCase.wanted), [
        nodeInfo(node('n1'), [existing]),
      ]);
      expect(result.n1).toBe(testCase.want);
    });
  }

  it('counts the host ports of sidecars (restartable init containers)', () => {
    const sidecar = pod('existing', {
      spec: {
        initContainers: [
          { name: 's', image: 'x', restartPolicy: 'Always', ports: [{ containerPort: 1, hostPort: 9000 }] },
        ],
      },
    });
    const result = filterAll(new NodePorts(), withPorts('p', [{ containerPort: 1, hostPort: 9000 }]), [
      nodeInfo(node('n1'), [sidecar]),
    ]);
    expect(result.n1).toBe(BUSY);
  });
});
