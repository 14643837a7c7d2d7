// What every esbuild bundle of this project shares: one minified file for Node.js 20.
import { readFileSync } from 'node:fs';
import type { BuildOptions } from 'esbuild';

export const NODE_BUNDLE = {
  bundle: true,
  minify: true,
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
} as const satisfies BuildOptions;

/**
 * V8 keeps a script's source for as long as the script lives, one byte a character if all are
 * Latin-1, else two: one Greek letter in a regular expression (esbuild escapes strings, not
 * those) made the control plane hold 4.7 MiB instead of 2.4. Escape such a character in the source.
 */
export function assertLatin1(file: string): void {
  const text = readFileSync(file, 'utf8');
  const at = text.search(/[\u0100-\uffff]/);
  if (at >= 0)
    throw new Error(
      `${file}: character U+${text.codePointAt(at)!.toString(16).padStart(4, '0')} beyond Latin-1 near ${JSON.stringify(text.slice(Math.max(0, at - 40), at + 10))}; write it as a \\u escape`,
    );
}
