// apiextensions-apiserver's CustomResourceDefinition strategy (pkg/registry/customresourcedefinition)
// and v1 defaulting: status is the controllers', the storage version is recorded in
// status.storedVersions, and the first delete marks the CRD Terminating under the cleanup finalizer
// (its REST Delete) so that its instances go first.
import type { KubeObject } from '../../api/object.js';
import { timestamp } from '../registry/object-meta.js';
import type { Strategy } from '../registry/strategy.js';
import { fieldsOf, isJsonObject, objectsOf, stringsOf } from '../registry/validation/json.js';
import { setCrdCondition } from './conditions.js';
import { CLEANUP_FINALIZER } from './crd-object.js';
import { validateCrd, validateCrdStatusUpdate, validateCrdUpdate } from './crd-validation.js';

/** SetDefaults_CustomResourceDefinitionSpec and SetDefaults_ServiceReference. */
function defaultCrd(crd: KubeObject): void {
  if (!isJsonObject(crd.spec)) return;
  const spec = crd.spec;
  if (isJsonObject(spec.names)) {
    const names = spec.names;
    const kind = typeof names.kind === 'string' ? names.kind : '';
    if (!names.singular) names.singular = kind.toLowerCase();
    if (!names.listKind && kind !== '') names.listKind = `${kind}List`;
  }
  if (spec.conversion === undefined || spec.conversion === null) spec.conversion = { strategy: 'None' };
  const service = fieldsOf(fieldsOf(fieldsOf(spec.conversion).webhook).clientConfig).service;
  if (isJsonObject(service) && service.port === undefined) service.port = 443;
}

/** Adds the storage version to status.storedVersions when it is not there yet. */
function recordStorageVersion(crd: KubeObject): void {
  const storage = objectsOf(fieldsOf(crd.spec).versions).find((version) => version.storage === true);
  if (!storage || typeof storage.name !== 'string') return;
  const status = isJsonObject(crd.status) ? crd.status : {};
  const stored = stringsOf(status.storedVersions);
  if (!stored.includes(storage.name)) status.storedVersions = [...stored, storage.name];
  crd.status = status;
}

export const crdStrategy: Partial<Strategy> = {
  defaults: defaultCrd,
  prepareForCreate(crd) {
    crd.status = {};
    recordStorageVersion(crd);
  },
  prepareForUpdate(crd, old) {
    crd.status = old.status === undefined ? {} : structuredClone(old.status);
    recordStorageVersion(crd);
  },
  validateCreate: validateCrd,
  validateUpdate(crd, old, subresource) {
    return subresource === 'status' ? validateCrdStatusUpdate(crd, old) : validateCrdUpdate(crd, old);
  },
  // Every CRD is marked on its first delete, whatever its finalizers: the cleanup finalizer is added then.
  finalizationPending: (crd) => crd.metadata?.deletionTimestamp === undefined,
  markDeleting(crd) {
    const meta = crd.metadata ?? {};
    if ((meta.finalizers ?? []).includes(CLEANUP_FINALIZER)) return;
    meta.finalizers = [...(meta.finalizers ?? []), CLEANUP_FINALIZER];
    crd.metadata = meta;
    setCrdCondition(
      crd,
      {
        type: 'Terminating',
        status: 'True',
        reason: 'InstanceDeletionPending',
        message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
      },
      timestamp(),
    );
  },
};
