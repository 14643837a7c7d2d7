/**
 * The exclusive upper bound of the keys that start with `prefix`, for range scans.
 * Keys compare bytewise (SQLite BINARY collation over UTF-8), so bumping the last
 * character is enough for the ASCII keys Kubernetes uses.
 */
export function prefixEnd(prefix: string): string {
  if (prefix === '') return '\u{10FFFF}';
  const last = prefix.charCodeAt(prefix.length - 1);
  return prefix.slice(0, -1) + String.fromCharCode(last + 1);
}
