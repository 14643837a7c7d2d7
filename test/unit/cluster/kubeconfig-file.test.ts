import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  deleteKubeconfigEntry,
  kubeconfigEntry,
  writeKubeconfigEntry,
} from '../../../src/cluster/kubeconfig.js';
import { lockFileName } from '../../../src/cluster/kubeconfig-lock.js';
import { kubeconfigPathForMerge, kubeconfigPaths } from '../../../src/cluster/kubeconfig-paths.js';
import { tempDir } from '../../support/temp.js';

const entry = kubeconfigEntry('dev', 'https://127.0.0.1:40123', {
  caCertificatePem: '-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n',
  clientCertificatePem: '-----BEGIN CERTIFICATE-----\nADMIN\n-----END CERTIFICATE-----\n',
  clientKeyPem: '-----BEGIN PRIVATE KEY-----\nKEY\n-----END PRIVATE KEY-----\n',
});
const fastLock = { attempts: 3, retryDelayMs: 20 };

const OTHER = `apiVersion: v1
kind: Config
clusters:
- name: other
  cluster: { server: 'https://other:6443' }
contexts:
- name: other
  context: { cluster: other, user: other }
current-context: other
users:
- name: other
  user: { token: secret }
`;

function mode(path: string): number {
  return statSync(path).mode & 0o777;
}

describe('kubeconfig files', () => {
  it('creates the directory and a 0600 file holding the tkube-<name> context as current', async () => {
    const file = join(tempDir(), 'new', 'dir', 'config');
    await writeKubeconfigEntry(file, entry, { lock: fastLock });
    expect(mode(file)).toBe(0o600);
    expect(mode(join(file, '..'))).toBe(0o700);
    expect(existsSync(lockFileName(file))).toBe(false);
    // Base64 of the PEMs, as kubectl expects *-data fields.
    expect(Buffer.from(entry.certificateAuthorityData, 'base64').toString()).toContain('CA');
    const { stdout } = await execa('kubectl', [
      'config',
      'view',
      '--kubeconfig',
      file,
      '--raw',
      '-o',
      'jsonpath={.current-context} {.clusters[0].cluster.server} {.users[0].name}',
    ]);
    expect(stdout).toBe('tkube-dev https://127.0.0.1:40123 tkube-dev');
  });

  it("keeps an existing file's other entries and its mode", async () => {
    const file = join(tempDir(), 'config');
    writeFileSync(file, OTHER, { mode: 0o640 });
    await writeKubeconfigEntry(file, entry, { lock: fastLock });
    expect(mode(file)).toBe(0o640);
    const config = parse(readFileSync(file, 'utf8')) as { contexts: { name: string }[]; users: unknown[] };
    expect(config.contexts.map((context) => context.name)).toEqual(['other', 'tkube-dev']);
    expect(config.users).toContainEqual({ name: 'other', user: { token: 'secret' } });

    expect(await deleteKubeconfigEntry(file, 'tkube-dev', { lock: fastLock })).toBe(true);
    expect(parse(readFileSync(file, 'utf8'))).toEqual({ ...parse(OTHER), 'current-context': '' });
    expect(await deleteKubeconfigEntry(file, 'tkube-dev', { lock: fastLock })).toBe(false);
  });

  it('does not create a missing file when removing', async () => {
    const file = join(tempDir(), 'absent');
    expect(await deleteKubeconfigEntry(file, 'tkube-dev')).toBe(false);
    expect(existsSync(file)).toBe(false);
  });

  it('waits for a lock held by another writer and fails, changing nothing, if it is never released', async () => {
    const file = join(tempDir(), 'config');
    writeFileSync(file, OTHER);
    writeFileSync(lockFileName(file), '');
    await expect(writeKubeconfigEntry(file, entry, { lock: fastLock })).rejects.toThrow(
      `cannot lock kubeconfig ${file}: ${file}.lock exists; another kubectl or tkube may be writing it; if none is, remove the lock file`,
    );
    await expect(deleteKubeconfigEntry(file, 'other', { lock: fastLock })).rejects.toThrow(
      'cannot lock kubeconfig',
    );
    expect(readFileSync(file, 'utf8')).toBe(OTHER);
    // The other writer's lock is theirs to remove.
    expect(existsSync(lockFileName(file))).toBe(true);
  });

  it('proceeds once the other writer releases the lock', async () => {
    const file = join(tempDir(), 'config');
    writeFileSync(lockFileName(file), '');
    const released = new Promise<void>((resolve) =>
      setTimeout(() => {
        rmSync(lockFileName(file));
        resolve();
      }, 150),
    );
    const started = Date.now();
    await writeKubeconfigEntry(file, entry, { lock: { attempts: 50, retryDelayMs: 20 } });
    await released;
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(readFileSync(file, 'utf8')).toContain('tkube-dev');
    expect(existsSync(lockFileName(file))).toBe(false);
  });

  it('serialises concurrent writers so that no entry is lost', async () => {
    const file = join(tempDir(), 'config');
    const names = ['a', 'b', 'c', 'd'];
    await Promise.all(
      names.map((name) =>
        writeKubeconfigEntry(
          file,
          { ...entry, name: `tkube-${name}` },
          { lock: { attempts: 100, retryDelayMs: 5 } },
        ),
      ),
    );
    const config = parse(readFileSync(file, 'utf8')) as { clusters: { name: string }[] };
    expect(config.clusters.map((cluster) => cluster.name).sort()).toEqual(
      names.map((name) => `tkube-${name}`),
    );
  });

  it('reports a file it cannot write as one line with a hint', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'file'), '');
    const file = join(dir, 'file', 'config');
    await expect(writeKubeconfigEntry(file, entry, { lock: fastLock })).rejects.toThrow(
      `cannot write kubeconfig ${file}: a parent path is not a directory; pass --kubeconfig PATH to write it elsewhere`,
    );
  });
});

describe('kubeconfig paths', () => {
  it('uses --kubeconfig alone, else $KUBECONFIG, else ~/.kube/config', () => {
    expect(kubeconfigPaths('/x/explicit', { KUBECONFIG: '/a:/b', HOME: '/home/u' })).toEqual(['/x/explicit']);
    expect(kubeconfigPaths(undefined, { KUBECONFIG: '/a::/b:/a', HOME: '/home/u' })).toEqual(['/a', '/b']);
    expect(kubeconfigPaths(undefined, { KUBECONFIG: '', HOME: '/home/u' })).toEqual(['/home/u/.kube/config']);
  });

  it('merges into the first listed file that exists, else the last, as kubectl does', () => {
    const dir = tempDir();
    const [first, second, third] = ['1', '2', '3'].map((name) => join(dir, name));
    const env = { KUBECONFIG: [first, second, third].join(':') };
    expect(kubeconfigPathForMerge(undefined, env)).toBe(third);
    mkdirSync(dir, { recursive: true });
    writeFileSync(second!, '');
    expect(kubeconfigPathForMerge(undefined, env)).toBe(second);
    writeFileSync(first!, '');
    expect(kubeconfigPathForMerge(undefined, env)).toBe(first);
  });
});
