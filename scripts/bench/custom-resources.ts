// The custom-resource part of `npm run bench:api`: the time from a CRD's create to Established and
// to its resource being served, and the create rate of a custom resource with a 20-field schema
// and 3 CEL rules, measured against ConfigMaps in the same run.
import type { ClientHttp2Session } from 'node:http2';
import { performance } from 'node:perf_hooks';

/** The bench's HTTP/2 request function (api.ts), handed to the scenarios in their own files. */
export type Request = (
  session: ClientHttp2Session,
  method: string,
  path: string,
  body?: string,
) => Promise<{ status: number; body: string }>;

export interface CustomResourceFigures {
  establishedMs: number;
  servedMs: number;
}

const FIELDS = Array.from({ length: 20 }, (_, i) => `field${i}`);

/** A CRD whose spec has 20 fields (strings and integers) and 3 x-kubernetes-validations rules. */
export function benchCrd(): string {
  const properties = Object.fromEntries(
    FIELDS.map((field, i) => [
      field,
      i % 2 === 0 ? { type: 'string', maxLength: 64 } : { type: 'integer', minimum: 0 },
    ]),
  );
  return JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'benchobjects.bench.tkube.dev' },
    spec: {
      group: 'bench.tkube.dev',
      scope: 'Namespaced',
      names: { plural: 'benchobjects', kind: 'BenchObject' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties,
                  'x-kubernetes-validations': [
                    { rule: 'self.field1 <= 1000', message: 'field1 is at most 1000' },
                    { rule: "self.field0 != 'forbidden'" },
                    { rule: 'self.field3 >= self.field1' },
                  ],
                },
              },
            },
          },
        },
      ],
    },
  });
}

/** One custom resource filling all 20 fields. */
export function benchObject(name: string): string {
  const spec = Object.fromEntries(FIELDS.map((field, i) => [field, i % 2 === 0 ? `value-${i}` : i * 10]));
  return JSON.stringify({ apiVersion: 'bench.tkube.dev/v1', kind: 'BenchObject', metadata: { name }, spec });
}

export const BENCH_OBJECTS_PATH = '/apis/bench.tkube.dev/v1/namespaces/default/benchobjects';

/** Creates the CRD and times Established (polled every millisecond) and the first served list. */
export async function installBenchCrd(
  session: ClientHttp2Session,
  request: Request,
): Promise<CustomResourceFigures> {
  const started = performance.now();
  const created = await request(
    session,
    'POST',
    '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
    benchCrd(),
  );
  if (created.status !== 201) throw new Error(`CRD create: ${created.status} ${created.body}`);
  let establishedMs: number | undefined;
  let servedMs: number | undefined;
  while (establishedMs === undefined || servedMs === undefined) {
    if (performance.now() - started > 10_000) throw new Error('the CRD was not served within 10 s');
    if (servedMs === undefined && (await request(session, 'GET', BENCH_OBJECTS_PATH)).status === 200)
      servedMs = performance.now() - started;
    if (establishedMs === undefined) {
      const crd = JSON.parse(
        (
          await request(
            session,
            'GET',
            '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/benchobjects.bench.tkube.dev',
          )
        ).body,
      ) as { status?: { conditions?: { type: string; status: string }[] } };
      if (crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True'))
        establishedMs = performance.now() - started;
    }
  }
  return { establishedMs, servedMs };
}
