// Kubernetes' regex functions (k8s.io/apiserver/pkg/cel/library/regex.go): find and findAll.
import type { Environment } from '@marcbachmann/cel-js';

const compiled = new Map<string, RegExp>();

/**
 * An RE2 pattern as a JavaScript one: leading flags `(?i)`, `(?s)`, `(?m)` become flags, named
 * groups `(?P<name>` lose the `P`, `\A` and `\z` become anchors.
 */
export function translateRe2(pattern: string): { source: string; flags: string } {
  let source = pattern;
  let flags = '';
  const leading = /^\(\?([imsU]+)\)/.exec(source);
  if (leading) {
    flags = [...new Set(leading[1]!.replace('U', ''))].join('');
    source = source.slice(leading[0].length);
  }
  source = source.replaceAll('(?P<', '(?<').replace(/\\A/g, '^').replace(/\\z/g, '$(?![\\s\\S])');
  return { source, flags };
}

/** Go's regexp error for what JavaScript reports about `pattern` (`error parsing regexp: <code>: \`<expr>\``). */
function goRegexError(pattern: string, jsMessage: string): string {
  let code = 'invalid regular expression';
  let expr = pattern;
  if (/Unterminated character class/.test(jsMessage)) {
    code = 'missing closing ]';
    expr = pattern.slice(pattern.lastIndexOf('['));
  } else if (/Unterminated group/.test(jsMessage)) code = 'missing closing )';
  else if (/Unmatched '\)'/.test(jsMessage)) code = 'unexpected )';
  else if (/Nothing to repeat/.test(jsMessage)) {
    code = 'missing argument to repetition operator';
    expr = /[*+?{]/.exec(pattern)?.[0] ?? pattern;
  } else if (/Invalid escape/.test(jsMessage)) {
    code = 'invalid escape sequence';
    expr = /\\./.exec(pattern)?.[0] ?? pattern;
  }
  return `error parsing regexp: ${code}: \`${expr}\``;
}

/** The problem of a pattern that does not compile, or undefined. */
export function regexProblem(pattern: string): string | undefined {
  try {
    const { source, flags } = translateRe2(pattern);
    new RegExp(source, `${flags}u`);
    return undefined;
  } catch (error) {
    return goRegexError(pattern, (error as Error).message);
  }
}

/** The pattern compiled once, with global matching for find and findAll. */
export function regexOf(pattern: string): RegExp {
  let regex = compiled.get(pattern);
  if (regex === undefined) {
    const { source, flags } = translateRe2(pattern);
    regex = new RegExp(source, `${flags}gu`);
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
