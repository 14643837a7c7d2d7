// The embedded CRI proto must number fields as upstream api.proto does: the runtime decodes by
// number. Each row encodes one field alone and reads its tag back.
import type { MessageTypeDefinition } from '@grpc/proto-loader';
import { describe, expect, it } from 'vitest';
import { CriError } from '../../../src/agent/kubelet/cri/client.js';
import { loadCriProto } from '../../support/cri-proto-loader.js';

const definition = loadCriProto();

function fieldNumber(message: string, value: object): number {
  const type = definition[`runtime.v1.${message}`] as MessageTypeDefinition<object, object>;
  const bytes = type.serialize(value);
  let tag = 0;
  let shift = 0;
  for (const byte of bytes) {
    tag |= (byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) break;
    shift += 7;
  }
  return tag >> 3;
}

describe('the embedded CRI proto', () => {
  it.each([
    ['PodSandboxConfig', { dnsConfig: { servers: ['x'] } }, 4],
    ['PodSandboxConfig', { portMappings: [{ hostPort: 80 }] }, 5],
    ['PodSandboxConfig', { linux: { cgroupParent: '/kubepods' } }, 8],
    ['LinuxSandboxSecurityContext', { runAsGroup: { value: 1 } }, 8],
    ['LinuxSandboxSecurityContext', { seccomp: { profileType: 'Unconfined' } }, 9],
    ['RunPodSandboxRequest', { runtimeHandler: 'runc' }, 2],
    ['ContainerConfig', { logPath: 'a/0.log' }, 11],
    ['ContainerConfig', { linux: { resources: { cpuShares: 2 } } }, 15],
    ['ContainerConfig', { tty: true }, 14],
    ['LinuxContainerSecurityContext', { runAsGroup: { value: 1 } }, 12],
    ['LinuxContainerSecurityContext', { noNewPrivs: true }, 11],
    ['LinuxContainerSecurityContext', { maskedPaths: ['/proc/kcore'] }, 13],
    ['LinuxContainerSecurityContext', { seccomp: { profileType: 'Localhost' } }, 15],
    ['LinuxContainerResources', { memoryLimitInBytes: 1 }, 4],
    ['LinuxContainerResources', { oomScoreAdj: 1 }, 5],
    ['ImageSpec', { userSpecifiedImage: 'busybox' }, 18],
    ['ContainerStats', { memory: { workingSetBytes: { value: 1 } } }, 3],
    ['MemoryUsage', { rssBytes: { value: 1 } }, 5],
    ['CpuUsage', { usageNanoCores: { value: 1 } }, 3],
    ['ContainerStatus', { logPath: 'x' }, 15],
    ['ContainerStatus', { imageId: 'sha256:x' }, 17],
    ['Container', { imageId: 'sha256:x' }, 10],
    ['Image', { username: 'nobody' }, 6],
    ['StopContainerRequest', { timeout: 30 }, 2],
    ['ExecSyncRequest', { timeout: 5 }, 3],
    ['PullImageRequest', { sandboxConfig: { hostname: 'h' } }, 3],
    ['ContainerFilter', { labelSelector: { a: 'b' } }, 4],
    ['PodSandboxFilter', { labelSelector: { a: 'b' } }, 3],
  ])('%s %j is field %i', (message, value, number) => {
    expect(fieldNumber(message, value)).toBe(number);
  });

  it('has every RPC the kubelet calls', () => {
    const runtime = Object.keys(definition['runtime.v1.RuntimeService'] as object);
    expect(runtime).toEqual(
      expect.arrayContaining([
        'Version',
        'Status',
        'RunPodSandbox',
        'StopPodSandbox',
        'RemovePodSandbox',
        'PodSandboxStatus',
        'ListPodSandbox',
        'CreateContainer',
        'StartContainer',
        'StopContainer',
        'RemoveContainer',
        'ListContainers',
        'ContainerStatus',
        'ExecSync',
      ]),
    );
    expect(Object.keys(definition['runtime.v1.ImageService'] as object)).toEqual(
      expect.arrayContaining(['ImageStatus', 'PullImage', 'ListImages']),
    );
  });

  it('words failed calls as Go gRPC errors', () => {
    const error = new CriError('PullImage', 5, 'image not found');
    expect(error.message).toBe('rpc error: code = NotFound desc = image not found');
    expect(error.notFound).toBe(true);
  });
});
