// Printers of the smaller groups: certificates, coordination, scheduling, node, internal.apiserver,
// resource (DRA) and storagemigration.
import type { KubeObject } from '../../api/object.js';
import { at, bool, int, list, optInt, optObj, optStr, str } from './access.js';
import { AGE, column, fieldColumn, NAME } from './columns.js';
import { fieldDescription } from './descriptions.js';
import { humanDuration } from './duration.js';
import { listWithMore } from './format.js';
import { ageOf, isDeleting, nameOf } from './meta.js';
import type { KindPrinter } from './types.js';

/** Approved/Denied/Pending, then `,Failed` and `,Issued` where they apply. */
function csrCondition(csr: KubeObject): string {
  const types = new Set(list(csr, 'status', 'conditions').map((condition) => str(condition, 'type')));
  let status = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) status += ',Failed';
  if (str(csr, 'status', 'certificate') !== '') status += ',Issued';
  return status;
}

export const certificateSigningRequests: KindPrinter = {
  columns: [
    NAME,
    AGE,
    fieldColumn('SignerName', 'string', 'certificates/v1beta1.CertificateSigningRequestSpec.signerName'),
    fieldColumn('Requestor', 'string', 'certificates/v1beta1.CertificateSigningRequestSpec.request'),
    fieldColumn(
      'RequestedDuration',
      'string',
      'certificates/v1beta1.CertificateSigningRequestSpec.expirationSeconds',
    ),
    fieldColumn('Condition', 'string', 'certificates/v1beta1.CertificateSigningRequestStatus.conditions'),
  ],
  row(csr, now) {
    const expirationSeconds = optInt(csr, 'spec', 'expirationSeconds');
    return [
      nameOf(csr),
      ageOf(csr, now),
      str(csr, 'spec', 'signerName') || '<none>',
      str(csr, 'spec', 'username'),
      expirationSeconds === undefined ? '<none>' : humanDuration(expirationSeconds * 1000),
      csrCondition(csr),
    ];
  },
};

export const clusterTrustBundles: KindPrinter = {
  columns: [
    NAME,
    fieldColumn('SignerName', 'string', 'certificates/v1alpha1.ClusterTrustBundleSpec.signerName'),
  ],
  row(bundle) {
    return [nameOf(bundle), str(bundle, 'spec', 'signerName') || '<none>'];
  },
};

export const leases: KindPrinter = {
  columns: [NAME, fieldColumn('Holder', 'string', 'coordination/v1.LeaseSpec.holderIdentity'), AGE],
  row(lease, now) {
    return [nameOf(lease), str(lease, 'spec', 'holderIdentity'), ageOf(lease, now)];
  },
};

export const leaseCandidates: KindPrinter = {
  columns: [
    NAME,
    fieldColumn('LeaseName', 'string', 'coordination/v1alpha2.LeaseCandidateSpec.leaseName'),
    // Kubernetes looks these descriptions up in ObjectMeta's documentation, which has none for them.
    column('BinaryVersion', 'string', ''),
    column('EmulationVersion', 'string', ''),
    AGE,
  ],
  row(candidate, now) {
    return [
      nameOf(candidate),
      str(candidate, 'spec', 'leaseName'),
      str(candidate, 'spec', 'binaryVersion'),
      str(candidate, 'spec', 'emulationVersion'),
      ageOf(candidate, now),
    ];
  },
};

export const priorityClasses: KindPrinter = {
  columns: [
    NAME,
    fieldColumn('Value', 'integer', 'scheduling/v1.PriorityClass.value'),
    fieldColumn('Global-Default', 'boolean', 'scheduling/v1.PriorityClass.globalDefault'),
    AGE,
    fieldColumn('PreemptionPolicy', 'string', 'scheduling/v1.PriorityClass.preemptionPolicy'),
  ],
  row(priorityClass, now) {
    return [
      nameOf(priorityClass),
      int(priorityClass, 'value'),
      bool(priorityClass, 'globalDefault'),
      ageOf(priorityClass, now),
      str(priorityClass, 'preemptionPolicy'),
    ];
  },
};

export const runtimeClasses: KindPrinter = {
  // Kubernetes looks the Handler description up in ObjectMeta's documentation, which has none.
  columns: [NAME, column('Handler', 'string', ''), AGE],
  row(runtimeClass, now) {
    return [nameOf(runtimeClass), str(runtimeClass, 'handler'), ageOf(runtimeClass, now)];
  },
};

export const storageVersions: KindPrinter = {
  columns: [
    NAME,
    fieldColumn(
      'CommonEncodingVersion',
      'string',
      'apiserverinternal/v1alpha1.StorageVersionStatus.commonEncodingVersion',
    ),
    fieldColumn(
      'StorageVersions',
      'string',
      'apiserverinternal/v1alpha1.StorageVersionStatus.storageVersions',
    ),
    AGE,
  ],
  row(storageVersion, now) {
    const versions = list(storageVersion, 'status', 'storageVersions').map(
      (version) => `${str(version, 'apiServerID')}=${str(version, 'encodingVersion')}`,
    );
    return [
      nameOf(storageVersion),
      optStr(storageVersion, 'status', 'commonEncodingVersion') ?? '<unset>',
      listWithMore(versions, versions.length, 3),
      ageOf(storageVersion, now),
    ];
  },
};

export const deviceClasses: KindPrinter = {
  columns: [NAME, AGE],
  row(deviceClass, now) {
    return [nameOf(deviceClass), ageOf(deviceClass, now)];
  },
};

/** deleted / pending / allocated / reserved, comma-separated. */
function resourceClaimState(claim: KubeObject): string {
  const states: string[] = [];
  const deleting = isDeleting(claim);
  if (deleting) states.push('deleted');
  if (optObj(claim, 'status', 'allocation') === undefined) {
    if (!deleting) states.push('pending');
  } else {
    states.push('allocated');
    if (list(claim, 'status', 'reservedFor').length > 0) states.push('reserved');
  }
  return states.join(',');
}

export const resourceClaims: KindPrinter = {
  columns: [
    NAME,
    column('State', 'string', 'A summary of the current state (allocated, pending, reserved, etc.).'),
    AGE,
  ],
  row(claim, now) {
    return [nameOf(claim), resourceClaimState(claim), ageOf(claim, now)];
  },
};

export const resourceClaimTemplates: KindPrinter = {
  columns: [NAME, AGE],
  row(template, now) {
    return [nameOf(template), ageOf(template, now)];
  },
};

export const resourceSlices: KindPrinter = {
  columns: [
    NAME,
    fieldColumn('Node', 'string', 'resource/v1beta1.ResourceSliceSpec.nodeName'),
    fieldColumn('Driver', 'string', 'resource/v1beta1.ResourceSliceSpec.driver'),
    fieldColumn('Pool', 'string', 'resource/v1beta1.ResourcePool.name'),
    AGE,
  ],
  row(slice, now) {
    return [
      nameOf(slice),
      str(slice, 'spec', 'nodeName'),
      str(slice, 'spec', 'driver'),
      str(slice, 'spec', 'pool', 'name'),
      ageOf(slice, now),
    ];
  },
};

export const storageVersionMigrations: KindPrinter = {
  columns: [
    // Kubernetes gives this Name column no `name` format.
    column('Name', 'string', fieldDescription('meta/v1.ObjectMeta.name')),
    column('Resource', 'string', 'Fully qualified resource to migrate'),
  ],
  row(migration) {
    const resource = at(migration, 'spec', 'resource');
    return [
      nameOf(migration),
      `${str(resource, 'resource')}.${str(resource, 'version')}.${str(resource, 'group')}`,
    ];
  },
};

/** kube-aggregator's APIService table: the service (`Local` without one) and the Available condition. */
export const apiServices: KindPrinter = {
  columns: [
    NAME,
    column('Service', 'string', 'The reference to the service that hosts this API endpoint.'),
    column('Available', 'string', 'Whether this service is available.'),
    AGE,
  ],
  row(apiService, now) {
    const namespace = str(apiService, 'spec', 'service', 'namespace');
    const service = optObj(apiService, 'spec', 'service')
      ? `${namespace}/${str(apiService, 'spec', 'service', 'name')}`
      : 'Local';
    const condition = list(apiService, 'status', 'conditions').find((c) => str(c, 'type') === 'Available');
    const status = condition ? str(condition, 'status') : 'Unknown';
    const available = condition && status !== 'True' ? `${status} (${str(condition, 'reason')})` : status;
    return [nameOf(apiService), service, available, ageOf(apiService, now)];
  },
};
