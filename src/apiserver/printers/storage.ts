// Printers of storage.k8s.io.
import type { KubeObject } from '../../api/object.js';
import { at, bool, list, optBool, optList, optStr, str, stringMap } from './access.js';
import { AGE, column, fieldColumn, NAME } from './columns.js';
import { ageOf, nameOf } from './meta.js';
import { canonicalQuantity } from './quantity.js';
import type { KindPrinter } from './types.js';

const DEFAULT_CLASS_ANNOTATIONS = [
  'storageclass.kubernetes.io/is-default-class',
  'storageclass.beta.kubernetes.io/is-default-class',
];
const DEFAULT_VOLUME_ATTRIBUTES_CLASS_ANNOTATION =
  'volumeattributesclass.alpha.kubernetes.io/is-default-class';

function annotatedTrue(object: KubeObject, annotations: readonly string[]): boolean {
  const present = stringMap(object, 'metadata', 'annotations');
  return annotations.some((annotation) => present[annotation] === 'true');
}

export const storageClasses: KindPrinter = {
  columns: [
    NAME,
    fieldColumn('Provisioner', 'string', 'storage/v1.StorageClass.provisioner'),
    fieldColumn('ReclaimPolicy', 'string', 'storage/v1.StorageClass.reclaimPolicy'),
    fieldColumn('VolumeBindingMode', 'string', 'storage/v1.StorageClass.volumeBindingMode'),
    fieldColumn('AllowVolumeExpansion', 'string', 'storage/v1.StorageClass.allowVolumeExpansion'),
    AGE,
  ],
  row(storageClass, now) {
    const name = nameOf(storageClass);
    return [
      annotatedTrue(storageClass, DEFAULT_CLASS_ANNOTATIONS) ? `${name} (default)` : name,
      str(storageClass, 'provisioner'),
      optStr(storageClass, 'reclaimPolicy') ?? 'Delete',
      optStr(storageClass, 'volumeBindingMode') ?? 'Immediate',
      bool(storageClass, 'allowVolumeExpansion'),
      ageOf(storageClass, now),
    ];
  },
};

export const volumeAttributesClasses: KindPrinter = {
  columns: [
    NAME,
    fieldColumn('DriverName', 'string', 'storage/v1beta1.VolumeAttributesClass.driverName'),
    AGE,
  ],
  row(vac, now) {
    const name = nameOf(vac);
    const isDefault = annotatedTrue(vac, [DEFAULT_VOLUME_ATTRIBUTES_CLASS_ANNOTATION]);
    return [isDefault ? `${name} (default)` : name, str(vac, 'driverName'), ageOf(vac, now)];
  },
};

export const volumeAttachments: KindPrinter = {
  columns: [
    NAME,
    fieldColumn('Attacher', 'string', 'storage/v1.VolumeAttachmentSpec.attacher', { format: 'name' }),
    fieldColumn('PV', 'string', 'storage/v1.VolumeAttachmentSource.persistentVolumeName'),
    fieldColumn('Node', 'string', 'storage/v1.VolumeAttachmentSpec.nodeName'),
    fieldColumn('Attached', 'boolean', 'storage/v1.VolumeAttachmentStatus.attached'),
    AGE,
  ],
  row(attachment, now) {
    return [
      nameOf(attachment),
      str(attachment, 'spec', 'attacher'),
      str(attachment, 'spec', 'source', 'persistentVolumeName'),
      str(attachment, 'spec', 'nodeName'),
      bool(attachment, 'status', 'attached'),
      ageOf(attachment, now),
    ];
  },
};

export const csiNodes: KindPrinter = {
  columns: [
    NAME,
    column('Drivers', 'integer', 'Drivers indicates the number of CSI drivers registered on the node'),
    AGE,
  ],
  row(csiNode, now) {
    return [nameOf(csiNode), list(csiNode, 'spec', 'drivers').length, ageOf(csiNode, now)];
  },
};

export const csiDrivers: KindPrinter = {
  columns: [
    NAME,
    fieldColumn('AttachRequired', 'boolean', 'storage/v1.CSIDriverSpec.attachRequired'),
    fieldColumn('PodInfoOnMount', 'boolean', 'storage/v1.CSIDriverSpec.podInfoOnMount'),
    fieldColumn('StorageCapacity', 'boolean', 'storage/v1.CSIDriverSpec.storageCapacity'),
    fieldColumn('TokenRequests', 'string', 'storage/v1.CSIDriverSpec.tokenRequests'),
    fieldColumn('RequiresRepublish', 'boolean', 'storage/v1.CSIDriverSpec.requiresRepublish'),
    fieldColumn('Modes', 'string', 'storage/v1.CSIDriverSpec.volumeLifecycleModes'),
    AGE,
  ],
  row(driver, now) {
    const tokenRequests = optList(driver, 'spec', 'tokenRequests');
    const modes = list(driver, 'spec', 'volumeLifecycleModes').map((mode) =>
      typeof mode === 'string' ? mode : '',
    );
    return [
      nameOf(driver),
      optBool(driver, 'spec', 'attachRequired') ?? true,
      bool(driver, 'spec', 'podInfoOnMount'),
      bool(driver, 'spec', 'storageCapacity'),
      tokenRequests === undefined
        ? '<unset>'
        : tokenRequests.map((request) => str(request, 'audience')).join(','),
      bool(driver, 'spec', 'requiresRepublish'),
      modes.join(',') || '<none>',
      ageOf(driver, now),
    ];
  },
};

export const csiStorageCapacities: KindPrinter = {
  columns: [
    NAME,
    fieldColumn('StorageClassName', 'string', 'storage/v1.CSIStorageCapacity.storageClassName'),
    fieldColumn('Capacity', 'string', 'storage/v1.CSIStorageCapacity.capacity'),
  ],
  row(capacity) {
    const amount = at(capacity, 'capacity');
    return [
      nameOf(capacity),
      str(capacity, 'storageClassName'),
      amount === undefined ? '<unset>' : canonicalQuantity(amount),
    ];
  },
};
