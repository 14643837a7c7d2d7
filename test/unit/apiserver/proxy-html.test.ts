// The proxy's HTML link rewriting (apimachinery util/proxy rewriteHTML) on its own.
import { describe, expect, it } from 'vitest';
import { rewriteHtmlLinks } from '../../../src/apiserver/handlers/proxy-html.js';

const underProxy = (url: string) => (url.startsWith('/') ? `/proxy${url}` : url);

describe('rewriteHtmlLinks', () => {
  it('rewrites the URL attributes of the tags that have them, and nothing else', async () => {
    const html =
      '<!DOCTYPE html><html><body><a href="/x" title="/t">a</a><img src=/i.png alt="/a"><div src="/d"></div></body></html>';
    expect(await rewriteHtmlLinks(html, underProxy)).toBe(
      '<!DOCTYPE html><html><body><a href="/proxy/x" title="/t">a</a><img src="/proxy/i.png" alt="/a"><div src="/d"></div></body></html>',
    );
  });

  it('writes start tags back as Go does: lower case, double quotes, escaped values, self-closing kept', async () => {
    expect(await rewriteHtmlLinks(`<A HREF='/q?a=1&amp;b="2"'>x</A><br/>`, underProxy)).toBe(
      '<a href="/proxy/q?a=1&amp;b=&#34;2&#34;">x</A><br/>',
    );
  });

  it('leaves text, comments and raw-text elements alone', async () => {
    const html =
      '<!-- <a href="/c"> --><script>var s = \'<a href="/s">\';</script><textarea><a href="/t"></textarea>1 < 2';
    expect(await rewriteHtmlLinks(html, underProxy)).toBe(html);
  });
});
