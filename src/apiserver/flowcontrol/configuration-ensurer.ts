// Upstream: k8s.io/apiserver/pkg/util/flowcontrol (ensurer for the bootstrap configuration) and
// apf_controller.go's FlowSchema status. At every start the mandatory and suggested objects are
// created where missing and put back to their bootstrap spec while their auto-update annotation
// says "true"; each FlowSchema's Dangling condition says whether its priority level exists.
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../../api/object.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { StatusError } from '../status.js';
import {
  AUTO_UPDATE_ANNOTATION,
  MANDATORY_FLOW_SCHEMAS,
  MANDATORY_PRIORITY_LEVELS,
  SUGGESTED_FLOW_SCHEMAS,
  SUGGESTED_PRIORITY_LEVELS,
} from './bootstrap-configuration.js';
import type { FlowController } from './flow-controller.js';

export interface FlowControlStores {
  readonly flowSchemas: ResourceStore;
  readonly priorityLevels: ResourceStore;
}

export async function ensureFlowControlConfiguration(stores: FlowControlStores): Promise<void> {
  const ensureAll = (store: ResourceStore, objects: readonly KubeObject[]) =>
    Promise.all(objects.map((object) => ensureObject(store, object)));
  // Levels first: a FlowSchema created before its level would be reported dangling for a moment.
  await Promise.all([
    ensureAll(stores.priorityLevels, MANDATORY_PRIORITY_LEVELS),
    ensureAll(stores.priorityLevels, SUGGESTED_PRIORITY_LEVELS),
  ]);
  await Promise.all([
    ensureAll(stores.flowSchemas, MANDATORY_FLOW_SCHEMAS),
    ensureAll(stores.flowSchemas, SUGGESTED_FLOW_SCHEMAS),
  ]);
}

async function ensureObject(store: ResourceStore, bootstrap: KubeObject): Promise<void> {
  const name = bootstrap.metadata!.name!;
  const existing = await store.find('', name);
  if (!existing) {
    try {
      await store.create('', structuredClone(bootstrap));
    } catch (error) {
      if (!(error instanceof StatusError && error.code === 409)) throw error;
    }
    return;
  }
  if (existing.metadata?.annotations?.[AUTO_UPDATE_ANNOTATION] !== 'true') return;
  if (isDeepStrictEqual(bootstrap.spec, existing.spec)) return;
  await store.guaranteedUpdate('', name, (current) => ({
    ...current,
    spec: structuredClone(bootstrap.spec),
  }));
}

/** Keeps every FlowSchema's Dangling condition current, as the config controller does. */
export function maintainDanglingConditions(controller: FlowController, flowSchemas: ResourceStore): void {
  controller.onDanglingChange = (flowSchema, dangling) => {
    const name = flowSchema.metadata?.name ?? '';
    const level = (flowSchema.spec as { priorityLevelConfiguration?: { name?: string } } | undefined)
      ?.priorityLevelConfiguration?.name;
    const condition = {
      type: 'Dangling',
      status: dangling ? 'True' : 'False',
      lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      reason: dangling ? 'NotFound' : 'Found',
      message: dangling
        ? `This FlowSchema references the PriorityLevelConfiguration object named "${level}" but there is no such object`
        : `This FlowSchema references the PriorityLevelConfiguration object named "${level}" and it exists`,
    };
    flowSchemas
      .guaranteedUpdate(
        '',
        name,
        (current) => {
          const status = (current.status ?? {}) as { conditions?: { type?: string }[] };
          const others = (status.conditions ?? []).filter((existing) => existing.type !== 'Dangling');
          return { ...current, status: { ...status, conditions: [...others, condition] } };
        },
        { subresource: 'status' },
      )
      .catch((error: unknown) => {
        // Gone meanwhile: nothing to report on.
        if (!(error instanceof StatusError && error.code === 404)) {
          console.error(`flowcontrol: status of FlowSchema ${name}:`, error);
        }
      });
  };
}
