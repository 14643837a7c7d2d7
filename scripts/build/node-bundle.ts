// What every esbuild bundle of this project shares: one minified file for Node.js 20.
import type { BuildOptions } from 'esbuild';

export const NODE_BUNDLE = {
  bundle: true,
  minify: true,
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
} as const satisfies BuildOptions;
