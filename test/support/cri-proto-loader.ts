// The embedded CRI proto loaded by @grpc/proto-loader, as the tests' CRI servers and codec
// references use it (proto-loader reads files only: the proto goes through a temporary one).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSync, type Options, type PackageDefinition } from '@grpc/proto-loader';
import { CRI_PROTO } from '../../src/agent/kubelet/cri/proto.js';

/** The kubelet's conversions: camelCase fields, 64-bit integers as numbers, enums by name, defaults. */
export const CRI_LOADER_OPTIONS: Options = { keepCase: false, longs: Number, enums: String, defaults: true };

export function loadCriProto(options: Options = CRI_LOADER_OPTIONS): PackageDefinition {
  const dir = mkdtempSync(join(tmpdir(), 'tkube-cri-proto-'));
  try {
    const file = join(dir, 'api.proto');
    writeFileSync(file, CRI_PROTO);
    return loadSync(file, options);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
