// The CRI codecs made with protobufjs alone (cri/methods.ts) against @grpc/proto-loader's, which
// the client used before and the test CRI servers still use: the same bytes out, the same objects
// in (camelCase fields, enums as names, 64-bit integers as numbers, defaults filled).
import type { MethodDefinition } from '@grpc/proto-loader';
import { describe, expect, it } from 'vitest';
import { criMethod } from '../../../src/agent/kubelet/cri/methods.js';
import { loadCriProto } from '../../support/cri-proto-loader.js';

const definition = loadCriProto();

function reference(service: string, name: string): MethodDefinition<object, object> {
  return (definition[`runtime.v1.${service}`] as Record<string, MethodDefinition<object, object>>)[name]!;
}

const RUN_SANDBOX = {
  config: {
    metadata: { name: 'web', uid: 'u-1', namespace: 'default', attempt: 2 },
    hostname: 'web',
    logDirectory: '/var/log/pods/default_web_u-1',
    dnsConfig: { servers: ['10.96.0.10'], searches: ['default.svc.cluster.local'], options: ['ndots:5'] },
    portMappings: [{ protocol: 'UDP', containerPort: 53, hostPort: 5353, hostIp: '0.0.0.0' }],
    labels: { app: 'web' },
    annotations: { note: 'x' },
    linux: { cgroupParent: '/kubepods/pod-u-1' },
  },
  runtimeHandler: 'runc',
};

describe('CRI codecs', () => {
  it('name each method by its gRPC path', () => {
    expect(criMethod('RuntimeService', 'RunPodSandbox').path).toBe(
      '/runtime.v1.RuntimeService/RunPodSandbox',
    );
    expect(criMethod('ImageService', 'PullImage').path).toBe('/runtime.v1.ImageService/PullImage');
    expect(criMethod('RuntimeService', 'Status')).toBe(criMethod('RuntimeService', 'Status'));
  });

  it("encode requests to proto-loader's bytes", () => {
    const ours = criMethod('RuntimeService', 'RunPodSandbox').serialize(RUN_SANDBOX);
    const theirs = reference('RuntimeService', 'RunPodSandbox').requestSerialize(RUN_SANDBOX);
    expect(Buffer.isBuffer(ours)).toBe(true);
    expect(ours.equals(theirs)).toBe(true);
    for (const [service, name, request] of [
      ['RuntimeService', 'StopContainer', { containerId: 'c1', timeout: 30 }],
      ['RuntimeService', 'ListContainers', { filter: { state: { state: 'CONTAINER_RUNNING' } } }],
      ['ImageService', 'PullImage', { image: { image: 'busybox:1' } }],
    ] as const) {
      expect(criMethod(service, name).serialize(request), name).toEqual(
        reference(service, name).requestSerialize(request),
      );
    }
  });

  it("decode responses to proto-loader's objects", () => {
    const containers = {
      containers: [
        {
          id: 'c1',
          podSandboxId: 's1',
          state: 'CONTAINER_EXITED',
          createdAt: 1_700_000_000_123_456,
          labels: { app: 'web' },
          image: { image: 'busybox:1' },
        },
      ],
    };
    const method = reference('RuntimeService', 'ListContainers');
    // The bytes a runtime sends, as proto-loader's codec (the test servers') writes them.
    const bytes = (method as unknown as { responseSerialize(value: object): Buffer }).responseSerialize(
      containers,
    );
    const ours = criMethod('RuntimeService', 'ListContainers').deserialize(bytes);
    expect(ours).toEqual(method.responseDeserialize(bytes));
    const [container] = (ours as { containers: Record<string, unknown>[] }).containers;
    expect(container).toMatchObject({ state: 'CONTAINER_EXITED', createdAt: 1_700_000_000_123_456 });
    // Defaults filled: the empty response still has its list.
    expect(criMethod('RuntimeService', 'ListContainers').deserialize(Buffer.alloc(0))).toEqual({
      containers: [],
    });
  });

  it('refuses a method the embedded proto lacks', () => {
    expect(() => criMethod('RuntimeService', 'UpdateRuntimeConfig')).toThrow(
      'CRI method RuntimeService.UpdateRuntimeConfig is not in the embedded proto',
    );
  });
});
