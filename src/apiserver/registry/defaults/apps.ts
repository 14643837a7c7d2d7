// Defaults of the apps/v1 workloads (pkg/apis/apps/v1 defaults.go and their pod templates).

import { defaultPersistentVolumeClaimSpec, defaultPodTemplate } from '../../../api/defaults/pod.js';
import { isJsonObject, type JsonObject } from '../../../api/object.js';

function ensure(parent: JsonObject, key: string): JsonObject {
  const existing = parent[key];
  if (isJsonObject(existing)) return existing;
  const created: JsonObject = {};
  parent[key] = created;
  return created;
}

function unset(value: unknown): boolean {
  return value === undefined || value === null;
}

function empty(value: unknown): boolean {
  return unset(value) || value === '';
}

function defaultTemplate(spec: JsonObject): void {
  defaultPodTemplate(ensure(spec, 'template'));
}

/** SetDefaults_Deployment. */
export function defaultDeployment(deployment: JsonObject): void {
  const spec = ensure(deployment, 'spec');
  if (unset(spec.replicas)) spec.replicas = 1;
  const strategy = ensure(spec, 'strategy');
  if (empty(strategy.type)) strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const rolling = ensure(strategy, 'rollingUpdate');
    if (unset(rolling.maxUnavailable)) rolling.maxUnavailable = '25%';
    if (unset(rolling.maxSurge)) rolling.maxSurge = '25%';
  }
  if (unset(spec.revisionHistoryLimit)) spec.revisionHistoryLimit = 10;
  if (unset(spec.progressDeadlineSeconds)) spec.progressDeadlineSeconds = 600;
  defaultTemplate(spec);
}

/** SetDefaults_ReplicaSet. */
export function defaultReplicaSet(replicaSet: JsonObject): void {
  const spec = ensure(replicaSet, 'spec');
  if (unset(spec.replicas)) spec.replicas = 1;
  defaultTemplate(spec);
}

/** SetDefaults_DaemonSet. */
export function defaultDaemonSet(daemonSet: JsonObject): void {
  const spec = ensure(daemonSet, 'spec');
  const strategy = ensure(spec, 'updateStrategy');
  if (empty(strategy.type)) strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const rolling = ensure(strategy, 'rollingUpdate');
    if (unset(rolling.maxUnavailable)) rolling.maxUnavailable = 1;
    if (unset(rolling.maxSurge)) rolling.maxSurge = 0;
  }
  if (unset(spec.revisionHistoryLimit)) spec.revisionHistoryLimit = 10;
  defaultTemplate(spec);
}

/** SetDefaults_StatefulSet, with its claim templates defaulted like PersistentVolumeClaims. */
export function defaultStatefulSet(statefulSet: JsonObject): void {
  const spec = ensure(statefulSet, 'spec');
  if (empty(spec.podManagementPolicy)) spec.podManagementPolicy = 'OrderedReady';
  const strategy = ensure(spec, 'updateStrategy');
  if (empty(strategy.type)) {
    strategy.type = 'RollingUpdate';
    if (unset(strategy.rollingUpdate)) strategy.rollingUpdate = {};
  }
  const rolling = strategy.rollingUpdate;
  if (strategy.type === 'RollingUpdate' && isJsonObject(rolling) && unset(rolling.partition))
    rolling.partition = 0;
  // maxUnavailable is behind the alpha MaxUnavailableStatefulSet gate, off in 1.33: upstream's
  // strategy drops the field (dropStatefulSetDisabledFields), so rollouts go one pod at a time.
  if (isJsonObject(rolling)) delete rolling.maxUnavailable;
  const retention = ensure(spec, 'persistentVolumeClaimRetentionPolicy');
  if (empty(retention.whenDeleted)) retention.whenDeleted = 'Retain';
  if (empty(retention.whenScaled)) retention.whenScaled = 'Retain';
  if (unset(spec.replicas)) spec.replicas = 1;
  if (unset(spec.revisionHistoryLimit)) spec.revisionHistoryLimit = 10;
  defaultTemplate(spec);
  if (Array.isArray(spec.volumeClaimTemplates)) {
    const claims: unknown[] = spec.volumeClaimTemplates;
    const typed = claims.map((claim) => {
      if (!isJsonObject(claim)) return claim;
      // apps/v1 encoding writes each claim with its type (issue 87583) and a null zero creationTimestamp.
      const { kind: _kind, apiVersion: _apiVersion, ...rest } = claim;
      return { kind: 'PersistentVolumeClaim', apiVersion: 'v1', ...rest };
    });
    spec.volumeClaimTemplates = typed;
    for (const claim of typed) {
      if (!isJsonObject(claim)) continue;
      const meta = ensure(claim, 'metadata');
      if (meta.creationTimestamp === undefined) meta.creationTimestamp = null;
      const status = ensure(claim, 'status');
      if (empty(status.phase)) status.phase = 'Pending';
      defaultPersistentVolumeClaimSpec(ensure(claim, 'spec'));
    }
  }
}
