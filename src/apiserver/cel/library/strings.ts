// CEL's strings extension (cel-go ext/strings.go, version 2 as Kubernetes 1.29+ declares it)
// where the core library lacks it: charAt, replace, strings.quote. (indexOf, lastIndexOf, lowerAscii, upperAscii, split,
// substring, trim and join come with the core library.)
import type { Environment } from '@marcbachmann/cel-js';

/** The `strings` namespace of `strings.quote(...)`. */
class StringsNamespace {}

function replace(text: string, from: string, to: string, limit: number): string {
  if (limit < 0) return text.split(from).join(to);
  let result = text;
  let position = 0;
  for (let count = 0; count < limit; count++) {
    const at = result.indexOf(from, position);
    if (at < 0) break;
    result = result.slice(0, at) + to + result.slice(at + from.length);
    position = at + to.length + (from === '' ? 1 : 0);
  }
  return result;
}

function quote(text: string): string {
  let out = '"';
  for (const ch of text) {
    switch (ch) {
      case '\\':
        out += '\\\\';
        break;
      case '"':
        out += '\\"';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\r':
        out += '\\r';
        break;
      case '\t':
        out += '\\t';
        break;
      case '\b':
        out += '\\b';
        break;
      case '\f':
        out += '\\f';
        break;
      case '\v':
        out += '\\v';
        break;
      case '\x07':
        out += '\\a';
        break;
      default:
        out += ch;
    }
  }
  return `${out}"`;
}

export function registerStrings(env: Environment): void {
  env.registerFunction('string.charAt(int): string', (text: string, index: bigint) => {
    const chars = [...text];
    const i = Number(index);
    if (i < 0 || i > chars.length) throw new Error(`index out of range: ${i}`);
    return chars[i] ?? '';
  });
  env.registerFunction('string.replace(string, string): string', (text: string, from: string, to: string) =>
    replace(text, from, to, -1),
  );
  env.registerFunction(
    'string.replace(string, string, int): string',
    (text: string, from: string, to: string, n: bigint) => replace(text, from, to, Number(n)),
  );
  env.registerType('StringsNamespace', StringsNamespace);
  env.registerConstant('strings', 'StringsNamespace', new StringsNamespace());
  env.registerFunction('StringsNamespace.quote(string): string', (_ns: StringsNamespace, text: string) =>
    quote(text),
  );
}
