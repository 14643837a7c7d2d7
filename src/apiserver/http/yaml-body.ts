// YAML request bodies, parsed by the `yaml` package. Loaded on first use (see body.ts): importing
// this module statically, rather than the package dynamically, keeps the package's named exports
// in the bundle.
import { parse } from 'yaml';

export function parseYaml(text: string): unknown {
  const tooDeep = flowDepthError(text) ?? blockDepthError(text);
  if (tooDeep !== undefined) throw new Error(tooDeep);
  return parse(text);
}

/** go-yaml's (gopkg.in/yaml.v2 scannerc.go) max_flow_level, and its max_indents alike. */
const MAX_FLOW_LEVEL = 10000;
const MAX_INDENTS = 10000;

/**
 * go-yaml's scanner refuses flow collections (`[`, `{`) nested past 10,000 levels; the `yaml`
 * package has no such limit and takes seconds on such input before failing. One pass finds the
 * depth first and gives go-yaml's text ("line N: " only past the first line, as its parser.fail
 * words it). Brackets in quotes and comments do not count, nor those inside a block plain
 * scalar (`a[b`): a flow collection starts only where a value may.
 */
function flowDepthError(text: string): string | undefined {
  if (text.length <= MAX_FLOW_LEVEL) return undefined;
  let depth = 0;
  let line = 0;
  let quote = 0;
  let comment = false;
  let previous = 0x0a; // the last character that is not a space, as if after a line break
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a) {
      line++;
      comment = false;
      if (quote === 0) previous = 0x0a;
      continue;
    }
    if (comment) continue;
    if (quote !== 0) {
      if (quote === 0x22 && c === 0x5c /* \ */) i++;
      else if (c === quote) {
        quote = 0;
        previous = c;
      }
      continue;
    }
    if (c === 0x20 || c === 0x09) continue;
    if (c === 0x23 /* # */) {
      comment = true;
      continue;
    }
    if ((c === 0x22 || c === 0x27) && startsValue(previous)) quote = c;
    else if ((c === 0x5b || c === 0x7b) && (depth > 0 || startsValue(previous))) {
      if (++depth > MAX_FLOW_LEVEL)
        return `${line === 0 ? '' : `line ${line + 1}: `}exceeded max depth of ${MAX_FLOW_LEVEL}`;
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) depth--;
    previous = c;
  }
  return undefined;
}

/** Whether a value may begin after `c` (a line start or an indicator). */
function startsValue(c: number): boolean {
  return (
    c === 0x0a ||
    c === 0x3a ||
    c === 0x2c ||
    c === 0x5b ||
    c === 0x7b ||
    c === 0x2d ||
    c === 0x3f ||
    c === 0x21
  );
}

/** A chain of block entries (`- - - x`) or complex keys (`? ? x`) opening a line. */
const COMPACT_CHAIN = /^(?:[-?](?: +|$))+/;

/**
 * go-yaml's other limit: 10,000 block indentation levels. Within the body size limit only
 * compact chains (`- - - x`, each entry one column further) can reach it, and the `yaml`
 * package overflows its stack on them after seconds; so each line's chain is counted against the
 * indentation stack, as roll_indent and unroll_indent keep it.
 */
function blockDepthError(text: string): string | undefined {
  if (text.length <= MAX_INDENTS) return undefined;
  const indents: number[] = [];
  const lines = text.split('\n');
  for (let line = 0; line < lines.length; line++) {
    const content = lines[line]!;
    const column = content.length - content.trimStart().length;
    if (column === content.length || content[column] === '#') continue;
    while (indents.length > 0 && indents.at(-1)! > column) indents.pop();
    const push = (at: number) => {
      if (indents.length === 0 || indents.at(-1)! < at) indents.push(at);
      return indents.length > MAX_INDENTS;
    };
    const failure = () => `${line === 0 ? '' : `line ${line + 1}: `}exceeded max depth of ${MAX_INDENTS}`;
    if (push(column)) return failure();
    const chain = COMPACT_CHAIN.exec(content.slice(column))?.[0] ?? '';
    for (let at = 1; at < chain.length; at++) {
      const c = chain[at];
      if ((c === '-' || c === '?') && chain[at - 1] === ' ' && push(column + at)) return failure();
    }
  }
  return undefined;
}
