import { stat } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { PodFiles } from '../../../src/agent/kubelet/sync/pod-files.js';
import { tempDir } from '../../support/temp.js';

describe('the kubelet pod files', () => {
  it('creates termination message files writable by every user, whatever the umask', async () => {
    const files = new PodFiles(tempDir());
    const path = await files.terminationMessageFile('pod-uid', 'main');
    expect(path.startsWith(`${files.podDir('pod-uid')}/containers/main/`)).toBe(true);
    const info = await stat(path);
    expect(info.size).toBe(0);
    expect(info.mode & 0o7777).toBe(0o666);
  });
});
