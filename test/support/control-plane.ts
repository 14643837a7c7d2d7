import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '../../src/client/types.js';
import {
  type ControlPlaneOptions,
  type RunningControlPlane,
  startControlPlane,
} from '../../src/controlplane/control-plane.js';

export interface InProcessControlPlane {
  readonly controlPlane: RunningControlPlane;
  /** A loopback client in system:masters. */
  readonly admin: Client;
  stop(): Promise<void>;
}

/**
 * The whole control plane (store, apiserver, controllers) in this process on a temporary state
 * directory, for tests that drive controllers through the API without starting a cluster.
 */
export async function startInProcessControlPlane(
  options: Pick<ControlPlaneOptions, 'fakeNodes' | 'controllerSettings'> = {},
): Promise<InProcessControlPlane> {
  const dir = mkdtempSync(join(tmpdir(), 'tkube-cp-'));
  const controlPlane = await startControlPlane({ stateDir: dir, apiPort: 0, ...options });
  const admin = controlPlane.loopbackClient(
    { name: 'test-admin', groups: ['system:masters', 'system:authenticated'] },
    'test',
  );
  return {
    controlPlane,
    admin,
    async stop() {
      await controlPlane.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls `check` every `intervalMs` until it returns a value other than undefined (or throws after `timeoutMs`). */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 10_000,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
