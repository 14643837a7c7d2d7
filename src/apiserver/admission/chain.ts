import type { KubeObject } from '../../api/object.js';
import type { ResourceInfo } from '../../api/resources/types.js';
import type { UserInfo } from '../http/types.js';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** What an admission plugin sees of a write (admission.Attributes in Kubernetes). */
export interface AdmissionAttributes {
  readonly operation: AdmissionOperation;
  readonly resource: ResourceInfo;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  /** The incoming object; mutating plugins change it in place. */
  readonly object: KubeObject;
  readonly oldObject?: KubeObject;
  readonly user?: UserInfo;
  readonly dryRun: boolean;
  /** Warnings for the response's Warning headers. */
  readonly warnings: string[];
}

/**
 * One admission plugin. Mutating plugins run first, in order, then validating ones; either
 * rejects a request by throwing a StatusError (or returning a promise that rejects with one). A
 * plugin that does not handle a request should return without a promise. Webhooks and ValidatingAdmissionPolicy slot in
 * as more plugins at the end of each phase.
 */
export interface AdmissionPlugin {
  readonly name: string;
  admit?(attributes: AdmissionAttributes): void | Promise<void>;
  validate?(attributes: AdmissionAttributes): void | Promise<void>;
}

export class AdmissionChain {
  constructor(private readonly plugins: readonly AdmissionPlugin[]) {}

  // A plugin with nothing to do for a request answers synchronously: awaiting only promises saves
  // each request a promise and a microtask turn per plugin.
  async admit(attributes: AdmissionAttributes): Promise<void> {
    for (const plugin of this.plugins) {
      const pending = plugin.admit?.(attributes);
      if (pending) await pending;
    }
  }

  async validate(attributes: AdmissionAttributes): Promise<void> {
    for (const plugin of this.plugins) {
      const pending = plugin.validate?.(attributes);
      if (pending) await pending;
    }
  }
}
