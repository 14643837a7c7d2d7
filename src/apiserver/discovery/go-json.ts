// Go's encoding/json escapes <, > and & (and U+2028/U+2029) inside strings; JSON.stringify does not.
// Hashes kube-apiserver computes over its own encoding only match when the bytes do.

const GO_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** JSON text as Go's json.Marshal writes it for the same (key-ordered) value. */
export function encodeJsonLikeGo(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (char) => GO_ESCAPES[char]!);
}
