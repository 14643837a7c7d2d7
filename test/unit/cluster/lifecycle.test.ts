// up / status / list / down against a stand-in control plane (fixtures/fake-controlplane.ts);
// test/integration/cluster runs the real one through the built CLI.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parse } from 'yaml';
import { clusterConfigFrom } from '../../../src/cluster/config/cluster-config.js';
import { isProcessAlive } from '../../../src/cluster/controlplane-process.js';
import { down, downAll } from '../../../src/cluster/down.js';
import { ClusterError } from '../../../src/cluster/errors.js';
import { kubeconfigContexts } from '../../../src/cluster/kubeconfig-document.js';
import { start } from '../../../src/cluster/start.js';
import { clusterPaths, type Environment } from '../../../src/cluster/state.js';
import { clusterStatus, listClusters } from '../../../src/cluster/status.js';
import { stop } from '../../../src/cluster/stop.js';
import { type UpOptions, up } from '../../../src/cluster/up.js';
import { parseCommandLine } from '../../../src/controlplane/run.js';

const fakeControlPlane = fileURLToPath(new URL('./fixtures/fake-controlplane.ts', import.meta.url));

function sandbox(): { env: Environment; kubeconfig: string } {
  const dir = mkdtempSync(join(tmpdir(), 'tkube-test-'));
  const kubeconfig = join(dir, 'kube', 'config');
  const env = { TKUBE_HOME: join(dir, 'tkube'), KUBECONFIG: kubeconfig, HOME: dir };
  // A failed test must not leave a control plane running.
  onTestFinished(async () => {
    await downAll({ env, progress: 'silent', gracePeriodMs: 300 });
    rmSync(dir, { recursive: true, force: true });
  });
  return { env, kubeconfig };
}

function fakeCommand(mode: string) {
  // `env` execs node in place, so the recorded pid is the control plane's own.
  return {
    file: '/usr/bin/env',
    args: [`FAKE_CONTROLPLANE=${mode}`, process.execPath, '--import', 'tsx', fakeControlPlane],
  };
}

function upWith(mode: string, options: Omit<UpOptions, 'controlPlaneCommand' | 'progress'>) {
  return up({ ...options, progress: 'silent', controlPlaneCommand: fakeCommand(mode) });
}

function contexts(kubeconfig: string) {
  return existsSync(kubeconfig)
    ? kubeconfigContexts(readFileSync(kubeconfig, 'utf8'), kubeconfig)
    : undefined;
}

describe('cluster lifecycle', () => {
  it('brings a cluster up, reports it, refuses a second of the same name or port, and tears it down', async () => {
    const { env, kubeconfig } = sandbox();
    const result = await upWith('ok', { name: 'dev', env });
    const paths = clusterPaths('dev', env);
    const record = JSON.parse(readFileSync(paths.recordFile, 'utf8'));
    expect(record).toMatchObject({
      name: 'dev',
      nodes: 0,
      server: `https://127.0.0.1:${result.record.apiPort}`,
    });
    expect(record.kubeconfigPath).toBe(kubeconfig);
    expect(contexts(kubeconfig)).toEqual({ contexts: ['tkube-dev'], currentContext: 'tkube-dev' });
    expect(readFileSync(paths.controlPlaneLog, 'utf8')).toContain('fake control plane starting');
    const pid = Number(readFileSync(paths.pidFile, 'utf8'));
    expect(isProcessAlive(pid)).toBe(true);

    const status = await clusterStatus('dev', { env });
    expect(status).toMatchObject({
      state: 'Running',
      controlPlane: { running: true, pid },
      apiServer: { ready: true },
    });
    expect(await listClusters({ env })).toEqual([
      { name: 'dev', status: expect.objectContaining({ state: 'Running' }) },
    ]);

    await expect(upWith('ok', { name: 'dev', env })).rejects.toThrow(
      'cluster "dev" already exists; delete it first with "tkube down dev", or choose another name',
    );
    await expect(upWith('ok', { name: 'other', env, apiPort: result.record.apiPort })).rejects.toThrow(
      `port ${result.record.apiPort} is already in use on 127.0.0.1; choose another with --api-port`,
    );
    expect(existsSync(clusterPaths('other', env).dir)).toBe(false);

    // A recorded pid that now belongs to another process is not taken for the control plane.
    writeFileSync(paths.pidFile, `${process.pid}\n`);
    expect(await clusterStatus('dev', { env })).toMatchObject({
      state: 'Down',
      controlPlane: { running: false },
    });
    expect(isProcessAlive(process.pid)).toBe(true);
    writeFileSync(paths.pidFile, `${pid}\n`);

    const removed = await down('dev', { env, progress: 'silent' });
    expect(removed).toEqual({
      name: 'dev',
      existed: true,
      controlPlane: 'stopped',
      kubeconfigFiles: [kubeconfig],
    });
    expect(isProcessAlive(pid)).toBe(false);
    expect(existsSync(paths.dir)).toBe(false);
    expect(contexts(kubeconfig)).toEqual({ contexts: [], currentContext: '' });
    expect(await down('dev', { env, progress: 'silent' })).toMatchObject({
      existed: false,
      controlPlane: 'not-running',
    });
    await expect(clusterStatus('dev', { env })).rejects.toThrow('cluster "dev" does not exist');
  });

  it('rolls everything back when the control plane dies, quoting its log', async () => {
    const { env, kubeconfig } = sandbox();
    const failure = upWith('crash', { name: 'dev', env });
    await expect(failure).rejects.toBeInstanceOf(ClusterError);
    await expect(failure).rejects.toThrow(
      /^failed to create cluster "dev": the control plane exited with code 3 before the API server was ready; the last lines of its log:\n.*\n {2}fatal: cannot open the database \(step: Waiting for the API server to be ready\); everything created was removed \(--retain keeps it\); the control plane log is in \S+\.log$/,
    );
    // The log outlives the rolled-back state directory.
    const kept = /the control plane log is in (\S+\.log)$/.exec(
      String(await failure.catch((error: Error) => error.message)),
    )![1]!;
    expect(readFileSync(kept, 'utf8')).toContain('fatal: cannot open the database');
    expect(existsSync(clusterPaths('dev', env).dir)).toBe(false);
    expect(contexts(kubeconfig)?.contexts ?? []).toEqual([]);
  });

  it('rolls back when the API server never becomes ready, or when interrupted', async () => {
    const { env } = sandbox();
    await expect(upWith('never-ready', { name: 'slow', env, readyTimeoutMs: 2_500 })).rejects.toThrow(
      /the API server was not ready after 2.5s \(last answer: (HTTP 500: \[-\]etcd failed|connect ECONNREFUSED)/,
    );
    expect(existsSync(clusterPaths('slow', env).dir)).toBe(false);

    // Ready, but pods would be refused: no namespace has its default account (the time allows a
    // loaded machine to start the stand-in control plane first).
    await expect(upWith('no-service-accounts', { name: 'slow', env, readyTimeoutMs: 4_000 })).rejects.toThrow(
      'namespace default has no default service account yet, so it would refuse pods; the serviceaccount controller may have failed',
    );
    expect(existsSync(clusterPaths('slow', env).dir)).toBe(false);

    await expect(upWith('ok', { name: 'slow', env, signal: AbortSignal.abort() })).rejects.toThrow(
      'interrupted: cluster "slow" was not created',
    );
    expect(existsSync(clusterPaths('slow', env).dir)).toBe(false);
    expect(await listClusters({ env })).toEqual([]);
  });

  it('kills a control plane that ignores SIGTERM', async () => {
    const { env } = sandbox();
    await upWith('stubborn', { name: 'a', env });
    const pid = Number(readFileSync(clusterPaths('a', env).pidFile, 'utf8'));
    const results = await downAll({ env, progress: 'silent', gracePeriodMs: 300 });
    expect(results.map((result) => [result.name, result.controlPlane])).toEqual([['a', 'killed']]);
    expect(isProcessAlive(pid)).toBe(false);
    expect(await listClusters({ env })).toEqual([]);
  });

  it('refuses impossible node counts and invalid names before touching anything', async () => {
    const { env } = sandbox();
    await expect(upWith('ok', { name: 'dev', env, nodes: -1 })).rejects.toThrow(
      '--nodes -1: the node count must be a whole number from 0 to 200',
    );
    await expect(upWith('ok', { name: 'My.Cluster', env })).rejects.toThrow(
      'invalid cluster name "My.Cluster"',
    );
    expect(existsSync(env.TKUBE_HOME!)).toBe(false);
  });

  it('stops a cluster and starts it again on the same port; refuses a second stop, up and a taken port', async () => {
    const { env } = sandbox();
    const { record } = await upWith('ok', { name: 'dev', env });
    const paths = clusterPaths('dev', env);
    const firstPid = Number(readFileSync(paths.pidFile, 'utf8'));

    expect(await stop('dev', { env, progress: 'silent' })).toEqual({
      name: 'dev',
      was: 'Running',
      nodesStopped: [],
    });
    expect(isProcessAlive(firstPid)).toBe(false);
    expect(existsSync(paths.pidFile)).toBe(false);
    expect(await clusterStatus('dev', { env })).toMatchObject({
      state: 'Stopped',
      apiServer: { ready: false, detail: 'the control plane is stopped' },
    });
    await expect(stop('dev', { env, progress: 'silent' })).rejects.toThrow(
      'cluster "dev" is already stopped; start it with "tkube start dev"',
    );
    await expect(upWith('ok', { name: 'dev', env })).rejects.toThrow(
      'cluster "dev" already exists and is stopped; start it with "tkube start dev", or delete it with "tkube down dev"',
    );

    // Another program holds the port: nothing is started, nothing recorded.
    const { createServer } = await import('node:net');
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(record.apiPort, '127.0.0.1', resolve));
    try {
      await expect(
        start('dev', { env, progress: 'silent', controlPlaneCommand: fakeCommand('ok') }),
      ).rejects.toThrow(
        `cannot start cluster "dev": port ${record.apiPort} is already in use on 127.0.0.1; its kubeconfig entry names that port`,
      );
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
    expect(existsSync(paths.pidFile)).toBe(false);

    expect(await start('dev', { env, progress: 'silent', controlPlaneCommand: fakeCommand('ok') })).toEqual({
      name: 'dev',
      nodes: [],
    });
    const status = await clusterStatus('dev', { env });
    expect(status).toMatchObject({ state: 'Running', apiPort: record.apiPort, apiServer: { ready: true } });
    await expect(
      start('dev', { env, progress: 'silent', controlPlaneCommand: fakeCommand('ok') }),
    ).rejects.toThrow('cluster "dev" is already running; stop it first with "tkube stop dev"');

    // Killed: status says so, and start brings it back.
    process.kill(status.controlPlane.pid!, 'SIGKILL');
    await expect.poll(() => isProcessAlive(status.controlPlane.pid!)).toBe(false);
    expect(await clusterStatus('dev', { env })).toMatchObject({
      state: 'Down',
      apiServer: {
        detail: `the control plane (pid ${status.controlPlane.pid}) is not running: it was killed or crashed; "tkube start dev" brings it back`,
      },
    });
    await start('dev', { env, progress: 'silent', controlPlaneCommand: fakeCommand('ok') });
    expect(await clusterStatus('dev', { env })).toMatchObject({ state: 'Running' });
  });

  it("passes the config's controller-manager and metrics-server flags to the control plane, again on start from the record", async () => {
    const { env } = sandbox();
    const config = clusterConfigFrom(
      parse(`
apiVersion: tkube.dev/v1alpha1
kind: Cluster
nodes: []
controllerManager:
  extraArgs:
    horizontal-pod-autoscaler-sync-period: 5s
    horizontal-pod-autoscaler-downscale-stabilization: 1m30s
    node-monitor-grace-period: 20s
metricsServer:
  extraArgs:
    metric-resolution: 10s
`),
      'c.yaml',
    );
    const { record } = await upWith('ok', { name: 'dev', env, config });
    const paths = clusterPaths('dev', env);
    const expected = {
      horizontalPodAutoscalerSyncPeriodMs: 5000,
      horizontalPodAutoscalerDownscaleStabilizationMs: 90_000,
      nodeMonitorGracePeriodMs: 20_000,
      metricResolutionMs: 10_000,
    };
    expect(record.componentFlags).toEqual(expected);
    expect(JSON.parse(readFileSync(paths.recordFile, 'utf8')).componentFlags).toEqual(expected);
    await stop('dev', { env, progress: 'silent' });
    await start('dev', { env, progress: 'silent', controlPlaneCommand: fakeCommand('ok') });

    // Each start's command line, as the control plane logged it.
    const starts = [...readFileSync(paths.controlPlaneLog, 'utf8').matchAll(/^arguments: (.*)$/gm)].map(
      (match) => JSON.parse(match[1]!) as string[],
    );
    expect(starts).toHaveLength(2);
    for (const argv of starts) {
      const flags = argv.slice(argv.indexOf('--state-dir'));
      expect(flags.join(' ')).toContain(
        '--horizontal-pod-autoscaler-sync-period 5s --horizontal-pod-autoscaler-downscale-stabilization 1m30s --node-monitor-grace-period 20s --metric-resolution 10s',
      );
      // The real control plane reads them back into the same settings.
      expect(parseCommandLine(flags, {}).componentFlags).toEqual(expected);
    }
  });

  it('stops again what a failed start started', async () => {
    const { env } = sandbox();
    await upWith('ok', { name: 'dev', env });
    await stop('dev', { env, progress: 'silent' });
    await expect(
      start('dev', { env, progress: 'silent', controlPlaneCommand: fakeCommand('crash') }),
    ).rejects.toThrow(/^failed to start cluster "dev": the control plane exited with code 3/);
    expect(existsSync(clusterPaths('dev', env).pidFile)).toBe(false);
    expect(await clusterStatus('dev', { env })).toMatchObject({ state: 'Stopped' });
  });
});
