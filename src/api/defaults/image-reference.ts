// Enough of the container image reference grammar (distribution/reference) to find an image's tag,
// which decides the default imagePullPolicy.

const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?`;
const NAME_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*';
const NAME = `(?:${DOMAIN}/)?${NAME_COMPONENT}(?:/${NAME_COMPONENT})*`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const REFERENCE = new RegExp(`^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);
const HEX_IDENTIFIER = /^[a-f0-9]{64}$/;
const NAME_MAX_LENGTH = 255;

export interface ImageReference {
  name: string;
  tag: string;
  digest: string;
}

/**
 * parsers.ParseImageName: the tag defaults to `latest` when neither a tag nor a digest is given;
 * undefined when the reference does not parse (Kubernetes then treats the tag as empty).
 */
export function parseImageReference(image: string): ImageReference | undefined {
  if (HEX_IDENTIFIER.test(image)) return undefined;
  const match = REFERENCE.exec(image);
  if (match === null) return undefined;
  const [, name = '', tag = '', digest = ''] = match;
  if (name.length > NAME_MAX_LENGTH) return undefined;
  return { name, tag: tag === '' && digest === '' ? 'latest' : tag, digest };
}

/** The pull policy Kubernetes defaults to: Always for `:latest` (or no tag), else IfNotPresent. */
export function defaultPullPolicy(image: string): 'Always' | 'IfNotPresent' {
  return parseImageReference(image)?.tag === 'latest' ? 'Always' : 'IfNotPresent';
}
