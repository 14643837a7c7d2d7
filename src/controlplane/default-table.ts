import type { KubeObject } from '../api/object.js';

/**
 * The table kube-apiserver gives kinds without a printer (apiserver's default table
 * convertor): the name and the creation time.
 */
export function defaultTable(objects: KubeObject[], includeObject: 'None' | 'Object' | 'Metadata') {
  return {
    columnDefinitions: [
      {
        name: 'Name',
        type: 'string',
        format: 'name',
        description:
          'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
        priority: 0,
      },
      {
        name: 'Created At',
        type: 'date',
        format: '',
        description:
          'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
        priority: 0,
      },
    ],
    rows: objects.map((object) => ({
      cells: [object.metadata?.name ?? '', object.metadata?.creationTimestamp ?? ''],
      object:
        includeObject === 'None'
          ? undefined
          : includeObject === 'Metadata'
            ? { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata ?? {} }
            : object,
    })),
  };
}
