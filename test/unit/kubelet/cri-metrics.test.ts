// The kubelet's runtime metrics against a CRI server on a unix socket: every call is counted
// under the kubelet's operation type, failures too; PLEG's relist counts pods and containers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type ServiceDefinition,
  type sendUnaryData,
  status,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CriClient } from '../../../src/agent/kubelet/cri/client.js';
import { KubeletMetrics } from '../../../src/agent/kubelet/metrics.js';
import { Pleg } from '../../../src/agent/kubelet/pleg.js';
import { POD_UID_LABEL } from '../../../src/agent/kubelet/runtime/labels.js';
import { loadCriProto } from '../../support/cri-proto-loader.js';

const dir = mkdtempSync(join(tmpdir(), 'cri-metrics-'));
const socket = join(dir, 'cri.sock');
let server: Server;

type Handler = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => void;
const answer =
  (body: object): Handler =>
  (_call, callback) =>
    callback(null, body);

const sandbox = (id: string, uid: string, state: string) => ({
  id,
  state,
  labels: { [POD_UID_LABEL]: uid },
  annotations: {},
  createdAt: 1,
});
const container = (id: string, uid: string, state: string) => ({
  id,
  podSandboxId: 's',
  state,
  labels: { [POD_UID_LABEL]: uid },
  annotations: {},
  createdAt: 1,
});

beforeAll(async () => {
  const definition = loadCriProto({ keepCase: false, longs: Number, enums: String });
  server = new Server();
  const implementation: Record<string, Handler> = {
    version: answer({ version: '0.1.0', runtimeName: 'fake', runtimeVersion: '1', runtimeApiVersion: 'v1' }),
    listPodSandbox: answer({
      items: [
        sandbox('s1', 'pod-a', 'SANDBOX_READY'),
        sandbox('s2', 'pod-b', 'SANDBOX_READY'),
        sandbox('s3', 'pod-c', 'SANDBOX_NOTREADY'),
      ],
    }),
    listContainers: answer({
      containers: [
        container('c1', 'pod-a', 'CONTAINER_RUNNING'),
        container('c2', 'pod-a', 'CONTAINER_RUNNING'),
        container('c3', 'pod-b', 'CONTAINER_EXITED'),
        container('c4', 'pod-c', 'CONTAINER_CREATED'),
      ],
    }),
    startContainer: (_call, callback) =>
      callback({ code: status.NOT_FOUND, details: 'container "gone" not found' }),
  };
  server.addService(
    definition['runtime.v1.RuntimeService'] as ServiceDefinition,
    implementation as UntypedServiceImplementation,
  );
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${socket}`, ServerCredentials.createInsecure(), (error) =>
      error ? reject(error) : resolve(),
    ),
  );
});

afterAll(() => {
  server?.forceShutdown();
  rmSync(dir, { recursive: true, force: true });
});

describe('kubelet runtime metrics', () => {
  it('counts each CRI call under the kubelet operation type, failures as errors', async () => {
    const metrics = new KubeletMetrics('node-1');
    const cri = new CriClient({
      endpoint: `unix://${socket}`,
      onOperation: (operation, seconds, failed) => metrics.runtimeOperation(operation, seconds, failed),
    });
    try {
      await cri.version();
      await cri.version();
      await expect(cri.startContainer('gone')).rejects.toThrow('rpc error: code = NotFound');
    } finally {
      cri.close();
    }
    const text = metrics.render();
    expect(text).toContain('kubelet_runtime_operations_total{operation_type="version"} 2\n');
    expect(text).toContain('kubelet_runtime_operations_total{operation_type="start_container"} 1\n');
    expect(text).toContain('kubelet_runtime_operations_errors_total{operation_type="start_container"} 1\n');
    expect(text).not.toContain('kubelet_runtime_operations_errors_total{operation_type="version"}');
    expect(text).toContain('kubelet_runtime_operations_duration_seconds_count{operation_type="version"} 2\n');
    // ExponentialBuckets(.005, 2.5, 14): the last bound is .005 × 2.5^13.
    expect(text).toMatch(
      /kubelet_runtime_operations_duration_seconds_bucket\{operation_type="version",le="745\.058\d*"\} 2/,
    );
  });

  it('shows what the last PLEG relist found as running pods and containers by state', async () => {
    const cri = new CriClient({ endpoint: `unix://${socket}` });
    const relisted: number[] = [];
    const pleg = new Pleg(
      cri,
      () => {},
      (result) => relisted.push(result.seconds),
      () => {},
    );
    const metrics = new KubeletMetrics('node-1', () => pleg.runtimeCounts());
    try {
      expect(metrics.render()).not.toMatch(/^kubelet_running_pods /m);
      const result = await pleg.relist();
      metrics.plegRelist(result.seconds, new Date(1_700_000_000_500));
    } finally {
      cri.close();
    }
    expect(relisted).toHaveLength(1);
    const text = metrics.render();
    expect(text).toContain('kubelet_running_pods 2\n');
    expect(text).toContain('kubelet_running_containers{container_state="running"} 2\n');
    expect(text).toContain('kubelet_running_containers{container_state="exited"} 1\n');
    expect(text).toContain('kubelet_running_containers{container_state="created"} 1\n');
    expect(text).toContain('kubelet_pleg_relist_duration_seconds_count 1\n');
    // As client_golang writes a float: Go's shortest 'g' form.
    expect(text).toContain('kubelet_pleg_last_seen_seconds 1.7e+09\n');
  });

  it('labels pod worker syncs, pod starts and container starts as the kubelet does', () => {
    const metrics = new KubeletMetrics('node-1');
    metrics.podWorkerSync('create', 0.3);
    metrics.podWorkerSync('sync', 0.01);
    metrics.podStarted(1.5);
    metrics.sandboxStart(false);
    metrics.sandboxStart(true);
    metrics.containerStart('init_container');
    metrics.containerStart('container', 'ErrImagePull');
    const text = metrics.render();
    expect(text).toContain('kubelet_node_name{node="node-1"} 1\n');
    expect(text).toContain(
      'kubelet_pod_worker_duration_seconds_bucket{operation_type="create",le="0.5"} 1\n',
    );
    expect(text).toContain(
      'kubelet_pod_worker_duration_seconds_bucket{operation_type="create",le="0.25"} 0\n',
    );
    expect(text).toContain('kubelet_pod_start_duration_seconds_bucket{le="1"} 0\n');
    expect(text).toContain('kubelet_pod_start_duration_seconds_bucket{le="2"} 1\n');
    expect(text).toContain('kubelet_pod_start_duration_seconds_bucket{le="3600"} 1\n');
    expect(text).toContain('kubelet_started_pods_total 2\n');
    expect(text).toContain('kubelet_started_pods_errors_total 1\n');
    expect(text).toContain('kubelet_started_containers_total{container_type="init_container"} 1\n');
    expect(text).toContain('kubelet_started_containers_total{container_type="container"} 1\n');
    expect(text).toContain(
      'kubelet_started_containers_errors_total{container_type="container",code="ErrImagePull"} 1\n',
    );
  });
});
