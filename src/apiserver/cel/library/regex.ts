// Kubernetes' regex functions (k8s.io/apiserver/pkg/cel/library/regex.go): find and findAll.
import type { Environment } from '@marcbachmann/cel-js';

const compiled = new Map<string, RegExp>();

/** The pattern compiled once; RE2 syntax is close enough to JavaScript's for these uses. */
export function regexOf(pattern: string): RegExp {
  let regex = compiled.get(pattern);
  if (regex === undefined) {
    regex = new RegExp(pattern, 'gu');
    if (compiled.size > 1000) compiled.clear();
    compiled.set(pattern, regex);
  }
  regex.lastIndex = 0;
  return regex;
}

function findAll(text: string, pattern: string, limit: number): string[] {
  if (limit === 0) return [];
  const found: string[] = [];
  for (const match of text.matchAll(regexOf(pattern))) {
    found.push(match[0]);
    if (limit > 0 && found.length >= limit) break;
  }
  return found;
}

export function registerRegex(env: Environment): void {
  env.registerFunction('string.find(string): string', (text: string, pattern: string) => {
    const match = regexOf(pattern).exec(text);
    return match === null ? '' : match[0];
  });
  env.registerFunction('string.findAll(string): list<string>', (text: string, pattern: string) =>
    findAll(text, pattern, -1),
  );
  env.registerFunction(
    'string.findAll(string, int): list<string>',
    (text: string, pattern: string, n: bigint) => findAll(text, pattern, Number(n)),
  );
}
