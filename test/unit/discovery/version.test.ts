import { describe, expect, it } from 'vitest';
import { KUBERNETES_GIT_VERSION } from '../../../src/api/version.js';
import { goPlatform, versionBody, versionInfo } from '../../../src/apiserver/discovery/version.js';

describe('/version', () => {
  it('reports Kubernetes 1.33 with the fields of version.Info in their order', () => {
    const info = versionInfo({ gitCommit: 'abc123', buildDate: '2025-05-01T12:00:00Z' });
    expect(Object.keys(info)).toEqual([
      'major',
      'minor',
      'emulationMajor',
      'emulationMinor',
      'minCompatibilityMajor',
      'minCompatibilityMinor',
      'gitVersion',
      'gitCommit',
      'gitTreeState',
      'buildDate',
      'goVersion',
      'compiler',
      'platform',
    ]);
    expect(info).toMatchObject({
      major: '1',
      minor: '33',
      emulationMajor: '1',
      emulationMinor: '33',
      minCompatibilityMajor: '1',
      minCompatibilityMinor: '32',
      gitVersion: 'v1.33.0',
      gitCommit: 'abc123',
      gitTreeState: 'clean',
      buildDate: '2025-05-01T12:00:00Z',
    });
    expect(info.gitVersion).toBe(KUBERNETES_GIT_VERSION);
    expect(info.platform).toBe(goPlatform(process.platform, process.arch));
  });

  it('falls back to what an unreleased Kubernetes build reports', () => {
    expect(versionInfo().buildDate).toBe('1970-01-01T00:00:00Z');
  });

  it('spells platforms as GOOS/GOARCH', () => {
    expect(goPlatform('linux', 'x64')).toBe('linux/amd64');
    expect(goPlatform('darwin', 'arm64')).toBe('darwin/arm64');
    expect(goPlatform('win32', 'ia32')).toBe('windows/386');
  });

  it('is written with two-space indents like json.MarshalIndent', () => {
    const body = versionBody(versionInfo());
    expect(body.split('\n').slice(0, 3)).toEqual(['{', '  "major": "1",', '  "minor": "33",']);
    expect(body.endsWith('\n}')).toBe(true);
  });
});
