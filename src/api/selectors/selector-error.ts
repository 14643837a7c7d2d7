/**
 * A selector that cannot be parsed or built. The message is the text kube-apiserver gives
 * (clients print it), so callers should pass it on unchanged, e.g. in a 400 BadRequest Status.
 */
export class SelectorError extends Error {
  override readonly name = 'SelectorError';
}
