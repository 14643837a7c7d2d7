// The CLI as the single executable runs it (bin/run.js's counterpart): the commands are bundled
// into one file with this module, and oclif finds them through package.json's explicit command
// strategy instead of reading dist/commands. `tkube version` is answered before this loads
// (version.ts).
import { execute } from '@oclif/core';

export async function runCli(): Promise<void> {
  // oclif looks for package.json upwards from here (the payload's root).
  await execute({ dir: import.meta.url });
}
