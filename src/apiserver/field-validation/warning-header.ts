// kube-apiserver sends warnings as `Warning: 299 - "<text>"` headers through a per-request recorder
// (apiserver/pkg/endpoints/filters/warning.go) that drops repeats, and once the texts pass 4096 runes in
// all cuts every text to 256 runes, rewrites the headers so far, and stops adding at 4096 again.

const TOTAL_RUNES = 4 * 1024;
const ITEM_RUNES = 256;

// Go's unicode.IsControl: C0, DEL and C1. Such a text is not sent at all.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** `299 - "<text>"` with `"` and `\` escaped, or undefined for a text Go refuses to put in a header. */
function formatWarning(text: string): string | undefined {
  if (CONTROL.test(text)) return undefined;
  return `299 - "${text.replace(/["\\]/g, (char) => `\\${char}`)}"`;
}

function runeLength(text: string): number {
  let runes = 0;
  for (const _ of text) runes++;
  return runes;
}

function truncateRunes(text: string): { text: string; runes: number } {
  const runes = runeLength(text);
  if (runes <= ITEM_RUNES) return { text, runes };
  return { text: [...text].slice(0, ITEM_RUNES).join(''), runes: ITEM_RUNES };
}

/**
 * The Warning header values for all the warnings of one request, in the order they were added, as
 * kube-apiserver's recorder leaves them. Values are Unicode text: for Node's http module write them as
 * UTF-8 bytes (`Buffer.from(value, 'utf8').toString('latin1')`), as Go does.
 */
export function warningHeader(texts: readonly string[]): string[] {
  const recorded = new Set<string>();
  const ordered: string[] = [];
  let headers: string[] = [];
  let written = 0;
  let truncating = false;
  for (const original of texts) {
    if (original === '') continue;
    if (truncating && written >= TOTAL_RUNES) break;
    if (recorded.has(original)) continue;
    recorded.add(original);
    ordered.push(original);

    const { text, runes } = truncating
      ? truncateRunes(original)
      : { text: original, runes: runeLength(original) };
    const header = formatWarning(text);
    if (header === undefined) continue;
    if (truncating || written + runes <= TOTAL_RUNES) {
      written += runes;
      headers.push(header);
      continue;
    }
    // Over the limit for the first time: replay everything so far, truncated.
    truncating = true;
    written = 0;
    headers = [];
    for (const earlier of ordered) {
      const cut = truncateRunes(earlier);
      const replayed = formatWarning(cut.text);
      if (replayed === undefined) continue;
      written += cut.runes;
      headers.push(replayed);
    }
  }
  return headers;
}
