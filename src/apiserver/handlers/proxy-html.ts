// The HTML half of apimachinery's proxy.Transport (util/proxy/transport.go, rewriteHTML): a
// text/html answer from a proxied backend has the URL-valued attributes of its start tags
// passed through the same rewriting as a redirect, so that links to the backend's own paths
// stay under the proxy path. Start tags are written back the way Go's html.Token.String does.
import { SAXParser, type StartTag } from 'parse5-sax-parser';

/** atomsToAttrs: which attributes of which tags hold a URL. */
const URL_ATTRIBUTES: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  Object.entries({
    a: ['href'],
    applet: ['codebase'],
    area: ['href'],
    audio: ['src'],
    base: ['href'],
    blockquote: ['cite'],
    body: ['background'],
    button: ['formaction'],
    command: ['icon'],
    del: ['cite'],
    embed: ['src'],
    form: ['action'],
    frame: ['longdesc', 'src'],
    head: ['profile'],
    html: ['manifest'],
    iframe: ['longdesc', 'src'],
    img: ['longdesc', 'src', 'usemap'],
    input: ['src', 'usemap', 'formaction'],
    ins: ['cite'],
    link: ['href'],
    object: ['classid', 'codebase', 'data', 'usemap'],
    q: ['cite'],
    script: ['src'],
    source: ['src'],
    video: ['poster', 'src'],
  }).map(([tag, attributes]) => [tag, new Set(attributes)]),
);

/** Go html's escape for attribute values. */
function escapeAttribute(value: string): string {
  return value.replace(
    /[&'<>"\r]/g,
    (char) =>
      ({ '&': '&amp;', "'": '&#39;', '<': '&lt;', '>': '&gt;', '"': '&#34;', '\r': '&#13;' })[char] ?? char,
  );
}

function serializeStartTag(tag: StartTag, rewriteUrl: (url: string) => string): string {
  const urlAttributes = URL_ATTRIBUTES.get(tag.tagName);
  const attributes = tag.attrs.map(({ name, value }) => {
    const rewritten = urlAttributes?.has(name) ? rewriteUrl(value) : value;
    return ` ${name}="${escapeAttribute(rewritten)}"`;
  });
  return `<${tag.tagName}${attributes.join('')}${tag.selfClosing ? '/>' : '>'}`;
}

/** Rewrites the URL attributes of `html`'s start tags with `rewriteUrl`; all else stays as it was. */
export async function rewriteHtmlLinks(html: string, rewriteUrl: (url: string) => string): Promise<string> {
  const parser = new SAXParser({ sourceCodeLocationInfo: true });
  const pieces: string[] = [];
  let copiedUpTo = 0;
  parser.on('startTag', (tag) => {
    const location = tag.sourceCodeLocation;
    if (!location) return;
    pieces.push(html.slice(copiedUpTo, location.startOffset), serializeStartTag(tag, rewriteUrl));
    copiedUpTo = location.endOffset;
  });
  // The parser is a stream that passes its input through: drain it and wait for the end.
  parser.resume();
  await new Promise<void>((resolve, reject) => {
    parser.once('finish', resolve);
    parser.once('error', reject);
    parser.end(html);
  });
  pieces.push(html.slice(copiedUpTo));
  return pieces.join('');
}
