// Kubernetes' `$(VAR)` expansion (command, args, env values, subPathExpr): `$$` is a literal `$`,
// an unknown or unterminated reference stays as written.

/** Expands `$(NAME)` references through `mapping`; what mapping returns is inserted as is. */
export function expandReferences(input: string, mapping: (name: string) => string): string {
  let out = '';
  let checkpoint = 0;
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] !== '$' || cursor + 1 >= input.length) continue;
    out += input.slice(checkpoint, cursor);
    const next = input[cursor + 1];
    let advance = 1;
    if (next === '$') {
      out += '$';
    } else if (next === '(') {
      const close = input.indexOf(')', cursor + 2);
      if (close < 0) {
        out += '$(';
      } else {
        out += mapping(input.slice(cursor + 2, close));
        advance = close - cursor;
      }
    } else {
      out += `$${next}`;
    }
    cursor += advance;
    checkpoint = cursor + 1;
  }
  return out + input.slice(checkpoint);
}

/** The mapping of environment expansion: known names give their value, others stay `$(NAME)`. */
export function envMapping(...sources: ReadonlyMap<string, string>[]): (name: string) => string {
  return (name) => {
    for (const source of sources) {
      const value = source.get(name);
      if (value !== undefined) return value;
    }
    return `$(${name})`;
  };
}
