// Replays apply/update sequences recorded from structured-merge-diff's merge.Updater
// (scripts/ssa-corpus) and compares objects, manager field sets and conflicts: a CRD-style type
// with every list and map kind (schema.json's Thing) and built-in Deployments, Pods, ConfigMaps
// and Services over tkube's own OpenAPI definitions.
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { fieldsV1ToSet, setToFieldsV1Json } from '../../../../src/apiserver/apply/fieldpath/fields-v1.js';
import { pathToString } from '../../../../src/apiserver/apply/fieldpath/path-element.js';
import { ApplyConflictError, type Conflict } from '../../../../src/apiserver/apply/merge/conflicts.js';
import {
  type ManagedFields,
  sameSchemaConverter,
  Updater,
} from '../../../../src/apiserver/apply/merge/updater.js';
import { builtinConverter } from '../../../../src/apiserver/apply/typed/builtin-types.js';
import { type OpenApiSchema, SchemaConverter } from '../../../../src/apiserver/apply/typed/from-openapi.js';
import type { SchemaType } from '../../../../src/apiserver/apply/typed/schema.js';
import type { JsonObject, JsonValue } from '../../../../src/apiserver/patch/json-value.js';

interface RecordedManager {
  apiVersion: string;
  applied: boolean;
  fieldsV1: JsonObject;
}
interface Sequence {
  /** The built-in definition the objects are of; absent for schema.json's root. */
  type?: string;
  live: JsonObject;
  steps: { op: 'apply' | 'update'; manager: string; force?: boolean; object: JsonObject }[];
  results: {
    error?: string;
    object: JsonValue;
    changed: boolean;
    managers: Record<string, RecordedManager>;
  }[];
}

const here = new URL('.', import.meta.url);
const schemaFile = JSON.parse(
  readFileSync(new URL('../../../../scripts/ssa-corpus/schema.json', here), 'utf8'),
) as { root: string; definitions: Record<string, OpenApiSchema> };
const corpus = JSON.parse(
  gunzipSync(readFileSync(new URL('corpus.generated.json.gz', here))).toString('utf8'),
) as Sequence[];

const converter = new SchemaConverter((ref) => {
  const name = ref.replace('#/definitions/', '');
  const schema = schemaFile.definitions[name];
  return schema ? { name, schema } : undefined;
});
const rootType = converter.namedType(schemaFile.root);
const typeOf = (sequence: Sequence): SchemaType =>
  sequence.type ? builtinConverter().namedType(sequence.type) : rootType;

// merge.Conflicts.Error(): what the recorder saw.
function smdConflictText(conflicts: readonly Conflict[]): string {
  const line = (c: Conflict) => pathToString(c.path);
  if (conflicts.length === 1) {
    const [only] = conflicts as [Conflict];
    return `conflict with ${JSON.stringify(only.manager)}: ${line(only)}`;
  }
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) byManager.set(c.manager, [...(byManager.get(c.manager) ?? []), line(c)]);
  return [...byManager.keys()]
    .sort()
    .flatMap((m) => [
      `conflicts with ${JSON.stringify(m)}:`,
      ...(byManager.get(m) ?? []).map((p) => `- ${p}`),
    ])
    .join('\n');
}

function snapshot(
  managers: ManagedFields,
): Record<string, { apiVersion: string; applied: boolean; fieldsV1: string }> {
  return Object.fromEntries(
    [...managers]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([m, v]) => [
        m,
        { apiVersion: v.apiVersion, applied: v.applied, fieldsV1: setToFieldsV1Json(v.set) },
      ]),
  );
}

describe('structured-merge-diff corpus', () => {
  it(`replays ${corpus.length} recorded sequences`, () => {
    let steps = 0;
    corpus.forEach((sequence, n) => {
      const updater = new Updater({ converter: sameSchemaConverter(typeOf(sequence)) });
      let live: JsonValue = sequence.live;
      let managers: ManagedFields = new Map();
      sequence.steps.forEach((step, i) => {
        const expected = sequence.results[i] as Sequence['results'][number];
        const where = `sequence ${n} step ${i}`;
        const working: ManagedFields = new Map(managers);
        let error: string | undefined;
        try {
          if (step.op === 'apply') {
            const result = updater.apply(live, step.object, 'v1', working, step.manager, step.force ?? false);
            if (result.object !== undefined) live = result.object;
          } else {
            live = updater.updateObject(live, step.object, 'v1', working, step.manager).object as JsonValue;
          }
          managers = working;
        } catch (caught) {
          if (!(caught instanceof ApplyConflictError)) throw caught;
          error = smdConflictText(caught.conflicts);
        }
        expect(error, where).toBe(expected.error);
        // The recorder omits a null object (everything removed).
        // (The quick check first: vitest's diffing matcher is slow over 50,000 steps.)
        if (!isDeepStrictEqual(live, expected.object ?? null)) {
          expect(live, where).toEqual(expected.object ?? null);
        }
        const want = Object.fromEntries(
          Object.entries(expected.managers).map(([m, v]) => [
            m,
            {
              apiVersion: v.apiVersion,
              applied: v.applied,
              fieldsV1: setToFieldsV1Json(fieldsV1ToSet(v.fieldsV1)),
            },
          ]),
        );
        const got = snapshot(managers);
        if (!isDeepStrictEqual(got, want)) expect(got, where).toEqual(want);
        steps++;
      });
    });
    expect(steps).toBe(corpus.length * 5);
  }, 300_000);
});
