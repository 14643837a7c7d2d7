// YAML request bodies, parsed by the `yaml` package. Loaded on first use (see body.ts): importing
// this module statically, rather than the package dynamically, keeps the package's named exports
// in the bundle.
import { parse } from 'yaml';

export function parseYaml(text: string): unknown {
  return parse(text);
}
