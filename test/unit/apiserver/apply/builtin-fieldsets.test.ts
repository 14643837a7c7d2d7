// ToFieldSet over built-in objects, against structured-merge-diff with kube-openapi's schemaconv
// reading the same OpenAPI definitions (recorded by scripts/ssa-corpus -fieldsets).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { setToFieldsV1Json } from '../../../../src/apiserver/apply/fieldpath/fields-v1.js';
import { builtinConverter } from '../../../../src/apiserver/apply/typed/builtin-types.js';
import { toFieldSet } from '../../../../src/apiserver/apply/typed/to-field-set.js';
import type { JsonValue } from '../../../../src/apiserver/patch/json-value.js';

const recorded = JSON.parse(
  readFileSync(new URL('builtin-fieldsets.generated.json', import.meta.url), 'utf8'),
) as Record<string, { object: JsonValue; fieldsV1?: JsonValue; error?: string }[]>;

describe('field sets of built-in kinds match upstream over the same definitions', () => {
  for (const [definition, cases] of Object.entries(recorded)) {
    it(definition, () => {
      const type = builtinConverter().namedType(definition);
      for (const c of cases) {
        if (c.error?.includes('omits key field "protocol"')) {
          // Recorded over definitions without defaults; tkube's converter now carries upstream's
          // `protocol: TCP` default (builtin-types.ts), so the port is keyed by it.
          const fields = setToFieldsV1Json(toFieldSet(type, c.object));
          expect(fields).toContain('"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}"');
          continue;
        }
        if (c.error) {
          expect(() => toFieldSet(type, c.object)).toThrow(c.error);
          continue;
        }
        // Byte for byte: the recorded object keeps upstream's key order.
        expect(setToFieldsV1Json(toFieldSet(type, c.object))).toBe(JSON.stringify(c.fieldsV1));
      }
    });
  }
});
