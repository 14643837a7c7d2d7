// Which per-version fields of a v1 CRD fold into the top-level fields of the internal form
// (Convert_v1_CustomResourceDefinitionSpec_To_apiextensions_CustomResourceDefinitionSpec): a field
// that is identical in every version is validated once, at `spec.validation`, `spec.subresources`
// or `spec.additionalPrinterColumns`.
import { semanticEqual } from '../registry/validation/json.js';
import type { CrdVersion } from './crd-object.js';

export interface Folding {
  readonly schema: boolean;
  readonly subresources: boolean;
  readonly columns: boolean;
}

export function foldedPerVersion(versions: readonly CrdVersion[]): Folding {
  const first = versions[0];
  if (!first) return { schema: false, subresources: false, columns: false };
  const same = (pick: (version: CrdVersion) => unknown) =>
    versions.every((version) => semanticEqual(pick(version) ?? null, pick(first) ?? null));
  return {
    schema: same((version) => version.raw.schema),
    subresources: same((version) => version.raw.subresources),
    columns: same((version) => (version.columns.length === 0 ? null : version.raw.additionalPrinterColumns)),
  };
}
