import type { KubeObject } from '../../../api/object.js';
import type { Strategy } from '../strategy.js';

interface SecretShape {
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  type?: string;
}

/**
 * `stringData` is write-only: its entries are merged into `data` (base64, winning over
 * `data` entries of the same key) and the field is dropped, as the v1 conversion does.
 */
function mergeStringData(object: KubeObject): void {
  const secret = object as SecretShape;
  if (secret.stringData === undefined) return;
  const data = { ...secret.data };
  for (const [key, value] of Object.entries(secret.stringData))
    data[key] = Buffer.from(String(value)).toString('base64');
  secret.data = data;
  delete secret.stringData;
}

export const secretStrategy: Partial<Strategy> = {
  defaults(object: KubeObject) {
    mergeStringData(object);
    const secret = object as SecretShape;
    secret.type ??= 'Opaque';
  },
};
