import { describe, expect, it } from 'vitest';
import { buildSchema } from '../../../scripts/build/protobuf/build-facts.js';
import { parseGoTypes } from '../../../scripts/build/protobuf/go-types.js';
import { parseProtoFile } from '../../../scripts/build/protobuf/proto-file.js';
import { protobufSchema } from '../../../src/apiserver/protobuf/load-schema.js';
import {
  FIELD_INLINE,
  FIELD_MAP,
  FIELD_OMIT_EMPTY,
  FIELD_POINTER,
  FIELD_REPEATED,
} from '../../../src/apiserver/protobuf/schema.js';

const PROTO = `/*
License.
*/
syntax = "proto2";

package k8s.io.api.example.v1;

import "k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto";

// Widget is a kind.
message Widget {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;

  optional WidgetSpec spec = 2;
}

message WidgetSpec {
  // +optional
  optional int32 replicas = 1;

  repeated string names = 2;

  map<string, bytes> blobs = 3;

  optional Source source = 4;

  optional Tags tags = 5;
}

message Source {
  optional string name = 1;
}

message Tags {
  // items, by convention
  repeated string items = 1;
}
`;

const GO = `package v1

// Widget is a kind.
type Widget struct {
	metav1.TypeMeta \`json:",inline"\`
	metav1.ObjectMeta \`json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"\`

	Spec WidgetSpec \`json:"spec" protobuf:"bytes,2,opt,name=spec"\`
}

type WidgetSpec struct {
	/*
		A block comment.
	*/
	Names []string \`json:"names,omitempty" protobuf:"bytes,2,rep,name=names"\`
	Replicas *int32 \`json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"\` // trailing comment
	Blobs map[string][]byte \`json:"blobs" protobuf:"bytes,3,rep,name=blobs"\`
	Source \`json:",inline" protobuf:"bytes,4,opt,name=source"\`
	Tags Tags \`json:"tags" protobuf:"bytes,5,opt,name=tags"\`
}

type Source struct {
	Name string \`json:"name" protobuf:"bytes,1,opt,name=name"\`
}

type Tags []string

type unused struct {
	encode, decode Thing
}
`;

const META_PROTO = `syntax = "proto2";
package k8s.io.apimachinery.pkg.apis.meta.v1;
message ObjectMeta {
  optional string name = 1;
}
${['WatchEvent', 'ListOptions', 'GetOptions', 'DeleteOptions', 'CreateOptions', 'UpdateOptions', 'PatchOptions', 'Status', 'APIVersions', 'APIGroupList', 'APIGroup', 'APIResourceList'].map((kind) => `message ${kind} {\n}`).join('\n')}
`;

const META_GO = `package v1
type ObjectMeta struct {
	Name string \`json:"name,omitempty" protobuf:"bytes,1,opt,name=name"\`
}
${['WatchEvent', 'ListOptions', 'GetOptions', 'DeleteOptions', 'CreateOptions', 'UpdateOptions', 'PatchOptions', 'Status', 'APIVersions', 'APIGroupList', 'APIGroup', 'APIResourceList'].map((kind) => `type ${kind} struct{}`).join('\n')}
`;

describe('protobuf schema generation', () => {
  it('reads generated.proto messages', () => {
    const file = parseProtoFile(PROTO, 'example.proto');
    expect(file.package).toBe('k8s.io.api.example.v1');
    expect(file.messages.get('k8s.io.api.example.v1.WidgetSpec')).toEqual([
      { name: 'replicas', number: 1, type: 'int32', repeated: false, map: false },
      { name: 'names', number: 2, type: 'string', repeated: true, map: false },
      { name: 'blobs', number: 3, type: 'bytes', repeated: false, map: true },
      { name: 'source', number: 4, type: 'k8s.io.api.example.v1.Source', repeated: false, map: false },
      { name: 'tags', number: 5, type: 'k8s.io.api.example.v1.Tags', repeated: false, map: false },
    ]);
  });

  it('joins proto fields with Go struct tags in Go field order', () => {
    const schema = buildSchema(
      [
        {
          proto: parseProtoFile(PROTO, 'a'),
          go: parseGoTypes([{ path: 'a', text: GO }]),
          group: 'example.com',
          version: 'v1',
        },
        {
          proto: parseProtoFile(META_PROTO, 'b'),
          go: parseGoTypes([{ path: 'b', text: META_GO }]),
          group: 'meta.k8s.io',
          version: 'v1',
        },
      ],
      'test',
    );
    expect(schema.kinds['example.com/v1']).toEqual({ Widget: 'k8s.io.api.example.v1.Widget' });
    expect(schema.messages['k8s.io.api.example.v1.WidgetSpec']).toEqual({
      fields: [
        ['names', 2, 'string', FIELD_REPEATED | FIELD_OMIT_EMPTY],
        ['replicas', 1, 'int32', FIELD_POINTER | FIELD_OMIT_EMPTY],
        ['blobs', 3, 'bytes', FIELD_MAP],
        ['', 4, 'k8s.io.api.example.v1.Source', FIELD_INLINE],
        ['tags', 5, 'k8s.io.api.example.v1.Tags', 0],
      ],
    });
    expect(schema.messages['k8s.io.api.example.v1.Tags']).toEqual({ list: 'string' });
    // TypeMeta travels in the envelope, so Widget has no field for it.
    expect(schema.messages['k8s.io.api.example.v1.Widget']).toEqual({
      fields: [
        ['metadata', 1, 'k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta', FIELD_OMIT_EMPTY],
        ['spec', 2, 'k8s.io.api.example.v1.WidgetSpec', 0],
      ],
    });
  });

  it('refuses proto fields the Go struct does not have', () => {
    const go = GO.replace(/\tTags Tags .*\n/, '');
    expect(() =>
      buildSchema(
        [
          {
            proto: parseProtoFile(PROTO, 'a'),
            go: parseGoTypes([{ path: 'a', text: go }]),
            group: 'x',
            version: 'v1',
          },
          {
            proto: parseProtoFile(META_PROTO, 'b'),
            go: parseGoTypes([{ path: 'b', text: META_GO }]),
            group: undefined,
            version: 'v1',
          },
        ],
        'test',
      ),
    ).toThrow(/WidgetSpec: proto fields without Go field: 5/);
  });

  it('committed schema: built-in facts Kubernetes 1.33 has', () => {
    const schema = protobufSchema();
    expect(schema.source).toMatch(/k8s\.io\/api@v0\.33\./);
    expect(schema.kinds.v1.ConfigMap).toBe('k8s.io.api.core.v1.ConfigMap');
    expect(schema.kinds['apps/v1'].Deployment).toBe('k8s.io.api.apps.v1.Deployment');
    expect(schema.kinds['apiextensions.k8s.io/v1'].CustomResourceDefinition).toBeDefined();
    expect(schema.kinds['apiregistration.k8s.io/v1'].APIService).toBeDefined();
    expect(schema.messages['k8s.io.api.core.v1.Volume']).toEqual({
      fields: [
        ['name', 1, 'string', 0],
        ['', 2, 'k8s.io.api.core.v1.VolumeSource', FIELD_INLINE],
      ],
    });
    // The JSON name, not the proto name, of a field whose tags disagree.
    const props = schema.messages['k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps'];
    expect('fields' in props && props.fields.find(([, number]) => number === 3)?.[0]).toBe('$ref');
  });
});
