// Pod volumes (ValidateVolumes / validateVolumeSource): names, exactly one source each, and the
// rules of each source type.

import { utf8Length } from '../../../../api/selectors/go-text.js';
import {
  childPath,
  type FieldError,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  indexPath,
} from '../../../../api/selectors/index.js';
import { validatePersistentVolumeClaimSpec } from '../core/persistent-volume-claim-spec.js';
import { GoRendered } from '../go-rendered.js';
import {
  arrayOf,
  fieldsOf,
  isJsonObject,
  isSet,
  type JsonObject,
  numberOf,
  objectOf,
  objectsOf,
  optionalNumber,
  optionalString,
  stringMapOf,
  stringOf,
} from '../json.js';
import { inclusiveRangeMessage, isDns1123Label, nameIsDnsSubdomain } from '../names.js';
import { fieldDuplicate, validateAnnotations, validateLabels } from '../object-meta.js';
import { quantityOf } from '../resources.js';
import {
  VOLUME_FIELD_PATHS,
  validateObjectFieldSelector,
  validateResourceFieldSelector,
} from './field-selectors.js';
import {
  validateFileMode,
  validateLocalDescendingPath,
  validateLocalNonReservedPath,
  validatePathNoBacksteps,
} from './paths.js';

export interface VolumeValidationOptions {
  /** The pod itself is validated (not a template), so image volumes need a reference. */
  resourceIsPod: boolean;
}

/** The volume sources a pod may use, keyed by their JSON names, in Kubernetes' checking order. */
const SOURCE_ORDER = [
  'emptyDir',
  'hostPath',
  'gitRepo',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'secret',
  'nfs',
  'iscsi',
  'glusterfs',
  'flocker',
  'persistentVolumeClaim',
  'rbd',
  'cinder',
  'cephfs',
  'quobyte',
  'downwardAPI',
  'fc',
  'flexVolume',
  'configMap',
  'azureFile',
  'vsphereVolume',
  'photonPersistentDisk',
  'portworxVolume',
  'azureDisk',
  'storageos',
  'projected',
  'scaleIO',
  'csi',
  'ephemeral',
  'image',
] as const;

export const VOLUME_SOURCE_KEYS: readonly string[] = SOURCE_ORDER;

// Kubernetes names a few of these differently in its "more than 1 volume type" errors.
const FORBIDDEN_NAME: Readonly<Record<string, string>> = { cephfs: 'cephFS', downwardAPI: 'downwarAPI' };

const HOST_PATH_TYPES = [
  '',
  'BlockDevice',
  'CharDevice',
  'Directory',
  'DirectoryOrCreate',
  'File',
  'FileOrCreate',
  'Socket',
];

function requireString(fields: JsonObject, key: string, path: string, detail = ''): FieldError[] {
  return stringOf(fields[key]) === '' ? [fieldRequired(childPath(path, key), detail)] : [];
}

function validateHostPath(source: JsonObject, path: string): FieldError[] {
  const target = stringOf(source.path);
  if (target === '') return [fieldRequired(childPath(path, 'path'), '')];
  const errors = validatePathNoBacksteps(target, childPath(path, 'path'));
  const type = optionalString(source.type);
  if (type !== undefined && !HOST_PATH_TYPES.includes(type)) {
    errors.push(fieldNotSupported(childPath(path, 'type'), type, HOST_PATH_TYPES));
  }
  return errors;
}

function validateKeyToPath(item: JsonObject, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (stringOf(item.key) === '') errors.push(fieldRequired(childPath(path, 'key'), ''));
  const target = stringOf(item.path);
  if (target === '') errors.push(fieldRequired(childPath(path, 'path'), ''));
  errors.push(...validateLocalNonReservedPath(target, childPath(path, 'path')));
  errors.push(...validateFileMode(item.mode, childPath(path, 'mode')));
  return errors;
}

function validateItems(items: unknown, path: string): FieldError[] {
  return objectsOf(items).flatMap((item, index) => validateKeyToPath(item, indexPath(path, index)));
}

function validateDownwardApiFile(file: JsonObject, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const target = stringOf(file.path);
  if (target === '') errors.push(fieldRequired(childPath(path, 'path'), ''));
  errors.push(...validateLocalNonReservedPath(target, childPath(path, 'path')));
  if (isSet(file.fieldRef)) {
    errors.push(
      ...validateObjectFieldSelector(file.fieldRef, VOLUME_FIELD_PATHS, childPath(path, 'fieldRef')),
    );
    if (isSet(file.resourceFieldRef)) {
      errors.push(
        fieldInvalid(path, 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'),
      );
    }
  } else if (isSet(file.resourceFieldRef)) {
    errors.push(
      ...validateResourceFieldSelector(file.resourceFieldRef, childPath(path, 'resourceFieldRef'), true),
    );
  } else {
    errors.push(fieldRequired(path, 'one of fieldRef and resourceFieldRef is required'));
  }
  errors.push(...validateFileMode(file.mode, childPath(path, 'mode')));
  return errors;
}

function validateProjected(source: JsonObject, path: string): FieldError[] {
  const errors = validateFileMode(source.defaultMode, childPath(path, 'defaultMode'));
  const seenPaths = new Set<string>();
  const claimPath = (target: string, badValue: string) => {
    if (target === '') return;
    if (seenPaths.has(target)) errors.push(fieldInvalid(path, badValue, 'conflicting duplicate paths'));
    else seenPaths.add(target);
  };
  objectsOf(source.sources).forEach((projection, index) => {
    let count = 0;
    const sourcePath = indexPath(childPath(path, 'sources'), index);
    for (const kind of ['secret', 'configMap'] as const) {
      const entry = objectOf(projection[kind]);
      if (entry === undefined) continue;
      count++;
      const entryPath = childPath(sourcePath, kind);
      if (stringOf(entry.name) === '') errors.push(fieldRequired(childPath(entryPath, 'name'), ''));
      objectsOf(entry.items).forEach((item, itemIndex) => {
        errors.push(...validateKeyToPath(item, indexPath(childPath(entryPath, 'items'), itemIndex)));
        claimPath(stringOf(item.path), stringOf(entry.name));
      });
    }
    const downward = objectOf(projection.downwardAPI);
    if (downward !== undefined) {
      count++;
      for (const file of objectsOf(downward.items)) {
        errors.push(...validateDownwardApiFile(file, childPath(sourcePath, 'downwardAPI')));
        claimPath(stringOf(file.path), stringOf(file.path));
      }
    }
    const token = objectOf(projection.serviceAccountToken);
    if (token !== undefined) {
      count++;
      const tokenPath = childPath(sourcePath, 'serviceAccountToken');
      const expiration = numberOf(token.expirationSeconds);
      if (expiration < 600) {
        errors.push(
          fieldInvalid(
            childPath(tokenPath, 'expirationSeconds'),
            expiration,
            'may not specify a duration less than 10 minutes',
          ),
        );
      }
      if (expiration > 2 ** 32) {
        errors.push(
          fieldInvalid(
            childPath(tokenPath, 'expirationSeconds'),
            expiration,
            'may not specify a duration larger than 2^32 seconds',
          ),
        );
      }
      const target = stringOf(token.path);
      if (target === '') errors.push(fieldRequired(childPath(path, 'path'), ''));
      else errors.push(...validateLocalNonReservedPath(target, childPath(path, 'path')));
    }
    const bundle = objectOf(projection.clusterTrustBundle);
    if (bundle !== undefined) {
      count++;
      const bundlePath = childPath(sourcePath, 'clusterTrustBundle');
      const name = optionalString(bundle.name);
      const signerName = optionalString(bundle.signerName);
      if (name !== undefined && signerName !== undefined) {
        errors.push(
          fieldInvalid(
            bundlePath,
            new GoRendered('core.ClusterTrustBundleProjection{...}'),
            'only one of name and signerName may be used',
          ),
        );
      } else if (name !== undefined) {
        if (name === '')
          errors.push(fieldRequired(childPath(bundlePath, 'name'), 'must be a valid object name'));
        if (isSet(bundle.labelSelector)) {
          errors.push(
            fieldInvalid(
              childPath(bundlePath, 'labelSelector'),
              bundle.labelSelector,
              'labelSelector must be unset if name is specified',
            ),
          );
        }
      } else if (signerName !== undefined) {
        if (signerName === '')
          errors.push(fieldRequired(childPath(bundlePath, 'signerName'), 'must be a valid signer name'));
      } else {
        errors.push(fieldRequired(bundlePath, 'either name or signerName must be specified'));
      }
      const target = stringOf(bundle.path);
      if (target === '') errors.push(fieldRequired(childPath(bundlePath, 'path'), ''));
      errors.push(...validateLocalNonReservedPath(target, childPath(bundlePath, 'path')));
      if (seenPaths.has(target)) errors.push(fieldInvalid(path, target, 'conflicting duplicate paths'));
      else seenPaths.add(target);
    }
    if (count > 1)
      errors.push(fieldForbidden(sourcePath, 'may not specify more than 1 volume type per source'));
  });
  return errors;
}

// Go's expression for IQNs is anchored only at the end.
const ISCSI_IQN = /iqn\.\d{4}-\d{2}\.([A-Za-z0-9.-]+)(:[^,;*&$|\s]+)$/;
const ISCSI_EUI = /^eui.[A-Za-z0-9]{16}$/;
const ISCSI_NAA = /^naa.[A-Za-z0-9]{32}$/;

function iscsiNameProblem(name: string): string | undefined {
  if (!name.startsWith('iqn') && !name.startsWith('eui') && !name.startsWith('naa')) {
    return 'must be valid format starting with iqn, eui, or naa';
  }
  if (name.startsWith('iqn') && !ISCSI_IQN.test(name)) return 'must be valid format';
  if (name.startsWith('eui') && !ISCSI_EUI.test(name)) return 'must be valid format';
  if (name.startsWith('naa') && !ISCSI_NAA.test(name)) return 'must be valid format';
  return undefined;
}

function validateIscsi(source: JsonObject, path: string): FieldError[] {
  const errors = requireString(source, 'targetPortal', path);
  const iqn = stringOf(source.iqn);
  if (iqn === '') errors.push(fieldRequired(childPath(path, 'iqn'), ''));
  else {
    const problem = iscsiNameProblem(iqn);
    if (problem !== undefined) errors.push(fieldInvalid(childPath(path, 'iqn'), iqn, problem));
  }
  const lun = numberOf(source.lun);
  if (lun < 0 || lun > 255)
    errors.push(fieldInvalid(childPath(path, 'lun'), lun, inclusiveRangeMessage(0, 255)));
  if ((source.chapAuthDiscovery === true || source.chapAuthSession === true) && !isSet(source.secretRef)) {
    errors.push(fieldRequired(childPath(path, 'secretRef'), ''));
  }
  const initiator = optionalString(source.initiatorName);
  if (initiator !== undefined) {
    const problem = iscsiNameProblem(initiator);
    if (problem !== undefined)
      errors.push(fieldInvalid(childPath(path, 'initiatorname'), initiator, problem));
  }
  return errors;
}

function validatePartition(source: JsonObject, path: string): FieldError[] {
  const partition = numberOf(source.partition);
  return partition < 0 || partition > 255
    ? [fieldInvalid(childPath(path, 'partition'), partition, inclusiveRangeMessage(1, 255))]
    : [];
}

function validateCsiDriverName(driver: string, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (driver === '') errors.push(fieldRequired(path, ''));
  if (utf8Length(driver) > 63) {
    errors.push({
      type: 'FieldValueTooLong',
      field: path,
      badValue: '<value omitted>',
      detail: 'may not be more than 63 bytes',
    });
  }
  for (const problem of nameIsDnsSubdomain(driver.toLowerCase(), false))
    errors.push(fieldInvalid(path, driver, problem));
  return errors;
}

const AZURE_CACHING = ['None', 'ReadOnly', 'ReadWrite'];
const AZURE_KINDS = ['Dedicated', 'Managed', 'Shared'];

function validateAzureDisk(source: JsonObject, path: string): FieldError[] {
  const errors = [...requireString(source, 'diskName', path), ...requireString(source, 'diskURI', path)];
  const caching = optionalString(source.cachingMode);
  if (caching !== undefined && !AZURE_CACHING.includes(caching)) {
    errors.push(fieldNotSupported(childPath(path, 'cachingMode'), caching, AZURE_CACHING));
  }
  const kind = optionalString(source.kind);
  if (kind !== undefined && !AZURE_KINDS.includes(kind))
    errors.push(fieldNotSupported(childPath(path, 'kind'), kind, AZURE_KINDS));
  const uri = stringOf(source.diskURI);
  if (kind === 'Managed' && !uri.startsWith('/subscriptions/')) {
    errors.push(
      fieldNotSupported(childPath(path, 'diskURI'), uri, [
        '/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}',
      ]),
    );
  }
  if (kind !== undefined && kind !== 'Managed' && !uri.startsWith('https://')) {
    errors.push(
      fieldNotSupported(childPath(path, 'diskURI'), uri, [
        'https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd',
      ]),
    );
  }
  return errors;
}

function validateFlexOptions(source: JsonObject, path: string): FieldError[] {
  const errors = requireString(source, 'driver', path);
  for (const key of Object.keys(stringMapOf(source.options))) {
    const slash = key.indexOf('/');
    const namespace = slash >= 0 ? key.slice(0, slash) : key;
    const normalized = `.${namespace.toLowerCase()}`;
    if (normalized.endsWith('.kubernetes.io') || normalized.endsWith('.k8s.io')) {
      errors.push(
        fieldInvalid(
          indexPath(childPath(path, 'options'), key),
          key,
          'kubernetes.io and k8s.io namespaces are reserved',
        ),
      );
    }
  }
  return errors;
}

export function validateSource(
  kind: string,
  source: JsonObject,
  path: string,
  volumeName: string,
  podName: string | undefined,
  options: VolumeValidationOptions,
): FieldError[] {
  switch (kind) {
    case 'emptyDir': {
      const limit = isSet(source.sizeLimit) ? quantityOf(source.sizeLimit) : undefined;
      return limit !== undefined && limit.sign() < 0
        ? [fieldForbidden(childPath(path, 'sizeLimit'), 'SizeLimit field must be a valid resource quantity')]
        : [];
    }
    case 'hostPath':
      return validateHostPath(source, path);
    case 'gitRepo':
      return [
        ...requireString(source, 'repository', path),
        ...validateLocalDescendingPath(stringOf(source.directory), childPath(path, 'directory')),
      ];
    case 'gcePersistentDisk': {
      const inner = childPath(path.slice(0, path.lastIndexOf('.')), 'persistentDisk');
      return [...requireString(source, 'pdName', inner), ...validatePartition(source, inner)];
    }
    case 'awsElasticBlockStore':
      return [...requireString(source, 'volumeID', path), ...validatePartition(source, path)];
    case 'secret':
      return [
        ...requireString(source, 'secretName', path),
        ...validateFileMode(source.defaultMode, childPath(path, 'defaultMode')),
        ...validateItems(source.items, childPath(path, 'items')),
      ];
    case 'configMap':
      return [
        ...requireString(source, 'name', path),
        ...validateFileMode(source.defaultMode, childPath(path, 'defaultMode')),
        ...validateItems(source.items, childPath(path, 'items')),
      ];
    case 'nfs': {
      const errors = [...requireString(source, 'server', path), ...requireString(source, 'path', path)];
      const target = stringOf(source.path);
      if (!target.startsWith('/'))
        errors.push(fieldInvalid(childPath(path, 'path'), target, 'must be an absolute path'));
      return errors;
    }
    case 'iscsi': {
      const errors = validateIscsi(source, path);
      if (isSet(source.initiatorName) && utf8Length(`${volumeName}:${stringOf(source.targetPortal)}`) > 64) {
        errors.push(
          fieldInvalid(
            childPath(path.slice(0, path.lastIndexOf('.')), 'name'),
            volumeName,
            'Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.',
          ),
        );
      }
      return errors;
    }
    case 'glusterfs':
      return [...requireString(source, 'endpoints', path), ...requireString(source, 'path', path)];
    case 'flocker': {
      const errors: FieldError[] = [];
      const name = stringOf(source.datasetName);
      const uuid = stringOf(source.datasetUUID);
      if (name === '' && uuid === '')
        errors.push(fieldRequired(path, 'one of datasetName and datasetUUID is required'));
      if (name !== '' && uuid !== '') {
        errors.push(
          fieldInvalid(path, 'resource', 'datasetName and datasetUUID can not be specified simultaneously'),
        );
      }
      if (name.includes('/'))
        errors.push(fieldInvalid(childPath(path, 'datasetName'), name, "must not contain '/'"));
      return errors;
    }
    case 'persistentVolumeClaim':
      return requireString(source, 'claimName', path);
    case 'rbd':
      return [
        ...(arrayOf(source.monitors).length === 0 ? [fieldRequired(childPath(path, 'monitors'), '')] : []),
        ...requireString(source, 'image', path),
      ];
    case 'cinder': {
      const errors = requireString(source, 'volumeID', path);
      const secretRef = objectOf(source.secretRef);
      if (secretRef !== undefined && stringOf(secretRef.name) === '') {
        errors.push(fieldRequired(childPath(childPath(path, 'secretRef'), 'name'), ''));
      }
      return errors;
    }
    case 'cephfs':
      return arrayOf(source.monitors).length === 0 ? [fieldRequired(childPath(path, 'monitors'), '')] : [];
    case 'quobyte': {
      const errors: FieldError[] = [];
      const registry = stringOf(source.registry);
      if (registry === '') {
        errors.push(
          fieldRequired(
            childPath(path, 'registry'),
            'must be a host:port pair or multiple pairs separated by commas',
          ),
        );
      } else if (stringOf(source.tenant).length >= 65) {
        errors.push(
          fieldRequired(
            childPath(path, 'tenant'),
            'must be a UUID and may not exceed a length of 64 characters',
          ),
        );
      } else {
        for (const pair of registry.split(',')) {
          if (!/^(\[[^\]]*\]|[^:[\]]*):[^:]*$/.test(pair)) {
            errors.push(
              fieldInvalid(
                childPath(path, 'registry'),
                registry,
                'must be a host:port pair or multiple pairs separated by commas',
              ),
            );
          }
        }
      }
      errors.push(...requireString(source, 'volume', path));
      return errors;
    }
    case 'downwardAPI': {
      const errors = validateFileMode(source.defaultMode, childPath(path, 'defaultMode'));
      for (const file of objectsOf(source.items)) errors.push(...validateDownwardApiFile(file, path));
      return errors;
    }
    case 'fc': {
      const errors: FieldError[] = [];
      const wwns = arrayOf(source.targetWWNs);
      const wwids = arrayOf(source.wwids);
      if (wwns.length < 1 && wwids.length < 1) {
        errors.push(
          fieldRequired(
            childPath(path, 'targetWWNs'),
            'must specify either targetWWNs or wwids, but not both',
          ),
        );
      }
      if (wwns.length !== 0 && wwids.length !== 0) {
        errors.push(
          fieldInvalid(
            childPath(path, 'targetWWNs'),
            wwns,
            'targetWWNs and wwids can not be specified simultaneously',
          ),
        );
      }
      if (wwns.length !== 0) {
        const lun = optionalNumber(source.lun);
        if (lun === undefined)
          errors.push(fieldRequired(childPath(path, 'lun'), 'lun is required if targetWWNs is specified'));
        else if (lun < 0 || lun > 255)
          errors.push(fieldInvalid(childPath(path, 'lun'), lun, inclusiveRangeMessage(0, 255)));
      }
      return errors;
    }
    case 'flexVolume':
      return validateFlexOptions(source, path);
    case 'azureFile':
      return [...requireString(source, 'secretName', path), ...requireString(source, 'shareName', path)];
    case 'vsphereVolume':
      return requireString(source, 'volumePath', path);
    case 'photonPersistentDisk':
      return requireString(source, 'pdID', path);
    case 'portworxVolume':
      return requireString(source, 'volumeID', path);
    case 'azureDisk':
      return validateAzureDisk(source, path);
    case 'storageos': {
      const errors: FieldError[] = [];
      const name = stringOf(source.volumeName);
      if (name === '') errors.push(fieldRequired(childPath(path, 'volumeName'), ''));
      else
        for (const problem of isDns1123Label(name))
          errors.push(fieldInvalid(childPath(path, 'volumeName'), name, problem));
      const namespace = stringOf(source.volumeNamespace);
      if (namespace !== '') {
        for (const problem of isDns1123Label(namespace)) {
          errors.push(fieldInvalid(childPath(path, 'volumeNamespace'), namespace, problem));
        }
      }
      const secretRef = objectOf(source.secretRef);
      if (secretRef !== undefined && stringOf(secretRef.name) === '') {
        errors.push(fieldRequired(childPath(childPath(path, 'secretRef'), 'name'), ''));
      }
      return errors;
    }
    case 'projected':
      return validateProjected(source, path);
    case 'scaleIO':
      return [
        ...requireString(source, 'gateway', path),
        ...requireString(source, 'system', path),
        ...requireString(source, 'volumeName', path),
      ];
    case 'csi': {
      const errors = validateCsiDriverName(stringOf(source.driver), childPath(path, 'driver'));
      const secretRef = objectOf(source.nodePublishSecretRef);
      if (secretRef !== undefined) {
        const name = stringOf(secretRef.name);
        if (name === '')
          errors.push(fieldRequired(childPath(childPath(path, 'nodePublishSecretRef'), 'name'), ''));
        else
          for (const problem of nameIsDnsSubdomain(name, false))
            errors.push(fieldInvalid(childPath(path, 'name'), name, problem));
      }
      return errors;
    }
    case 'ephemeral': {
      const template = objectOf(source.volumeClaimTemplate);
      if (template === undefined) return [fieldRequired(childPath(path, 'volumeClaimTemplate'), '')];
      const templatePath = childPath(path, 'volumeClaimTemplate');
      const errors = [
        ...validateTemplateObjectMeta(template.metadata, childPath(templatePath, 'metadata')),
        ...validatePersistentVolumeClaimSpec(template.spec, childPath(templatePath, 'spec')),
      ];
      if (podName !== undefined && podName !== '' && volumeName !== '') {
        const claimName = `${podName}-${volumeName}`;
        for (const problem of nameIsDnsSubdomain(claimName, false)) {
          errors.push(
            fieldInvalid(
              childPath(path.slice(0, path.lastIndexOf('.')), 'name'),
              volumeName,
              `PVC name "${claimName}": ${problem}`,
            ),
          );
        }
      }
      return errors;
    }
    case 'image': {
      const errors: FieldError[] = [];
      if (options.resourceIsPod && stringOf(source.reference) === '')
        errors.push(fieldRequired(childPath(path, 'reference'), ''));
      errors.push(...validatePullPolicy(stringOf(source.pullPolicy), childPath(path, 'pullPolicy')));
      return errors;
    }
    default:
      return [];
  }
}

const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];

/** validatePullPolicy. */
export function validatePullPolicy(policy: string, path: string): FieldError[] {
  if (PULL_POLICIES.includes(policy)) return [];
  if (policy === '') return [fieldRequired(path, '')];
  return [fieldNotSupported(path, policy, PULL_POLICIES)];
}

// The ObjectMeta fields in Go's declaration order, with the names Kubernetes derives for errors.
const TEMPLATE_META_FIELDS: ReadonlyArray<readonly [string, string]> = [
  ['name', 'name'],
  ['generateName', 'generateName'],
  ['namespace', 'namespace'],
  ['selfLink', 'selfLink'],
  ['uid', 'uID'],
  ['resourceVersion', 'resourceVersion'],
  ['generation', 'generation'],
  ['creationTimestamp', 'creationTimestamp'],
  ['deletionTimestamp', 'deletionTimestamp'],
  ['deletionGracePeriodSeconds', 'deletionGracePeriodSeconds'],
  ['ownerReferences', 'ownerReferences'],
  ['finalizers', 'finalizers'],
  ['managedFields', 'managedFields'],
];

/** ValidateTemplateObjectMeta: only labels and annotations may be set. */
export function validateTemplateObjectMeta(meta: unknown, path: string): FieldError[] {
  const fields = fieldsOf(meta);
  const errors = [
    ...validateAnnotations(fields.annotations, childPath(path, 'annotations')),
    ...validateLabels(fields.labels, childPath(path, 'labels')),
  ];
  for (const [key, errorName] of TEMPLATE_META_FIELDS) {
    const value = fields[key];
    const zero =
      value === undefined ||
      value === null ||
      value === '' ||
      value === 0 ||
      (Array.isArray(value) && value.length === 0);
    if (!zero) errors.push(fieldForbidden(childPath(path, errorName), 'cannot be set'));
  }
  return errors;
}

/** The volumes that validated, by name, with the source each uses. */
export type ValidVolumes = Map<string, { kind: string; source: JsonObject }>;

/** ValidateVolumes. `podName` is set only for pods (not templates), for generic ephemeral volumes. */
export function validateVolumes(
  volumes: unknown,
  podName: string | undefined,
  path: string,
  options: VolumeValidationOptions,
): { volumes: ValidVolumes; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const valid: ValidVolumes = new Map();
  const list = objectsOf(volumes);
  const createdClaims = new Set<string>();
  if (podName !== undefined && podName !== '') {
    for (const volume of list)
      if (isSet(volume.ephemeral)) createdClaims.add(`${podName}-${stringOf(volume.name)}`);
  }
  list.forEach((volume, index) => {
    const volumePath = indexPath(path, index);
    const name = stringOf(volume.name);
    const volumeErrors: FieldError[] = [];
    let count = 0;
    let kind = '';
    for (const key of SOURCE_ORDER) {
      const source = volume[key];
      if (!isJsonObject(source)) continue;
      if (count > 0) {
        volumeErrors.push(
          fieldForbidden(
            childPath(volumePath, FORBIDDEN_NAME[key] ?? key),
            'may not specify more than 1 volume type',
          ),
        );
        continue;
      }
      count++;
      kind = key;
      volumeErrors.push(...validateSource(key, source, childPath(volumePath, key), name, podName, options));
    }
    if (count === 0) volumeErrors.push(fieldRequired(volumePath, 'must specify a volume type'));
    if (name === '') volumeErrors.push(fieldRequired(childPath(volumePath, 'name'), ''));
    else
      for (const problem of isDns1123Label(name))
        volumeErrors.push(fieldInvalid(childPath(volumePath, 'name'), name, problem));
    if (valid.has(name)) volumeErrors.push(fieldDuplicate(childPath(volumePath, 'name'), name));
    if (volumeErrors.length === 0) valid.set(name, { kind, source: fieldsOf(volume[kind]) });
    else errors.push(...volumeErrors);
    const claim = objectOf(volume.persistentVolumeClaim);
    if (claim !== undefined && createdClaims.has(stringOf(claim.claimName))) {
      errors.push(
        fieldInvalid(
          childPath(childPath(volumePath, 'persistentVolumeClaim'), 'claimName'),
          stringOf(claim.claimName),
          'must not reference a PVC that gets created for an ephemeral volume',
        ),
      );
    }
  });
  return { volumes: valid, errors };
}
