// Admission webhooks wired for the apiserver: the two configuration caches, the metrics, and the
// mutating and validating plugins that read them.
import type { Store } from '../../../storage/index.js';
import type { AuthorizeFunction } from '../../cel/library/authz.js';
import type { AdmissionPlugin } from '../chain.js';
import type { ObjectLister } from '../object-cache.js';
import type { WebhookClientDeps } from './client.js';
import { WebhookConfigurations } from './configurations.js';
import { type WebhookAdmissionOptions, webhookAdmission } from './dispatcher.js';
import { WebhookMetrics } from './metrics.js';

export interface AdmissionWebhookDeps {
  readonly store: Store;
  /** Key prefixes of the mutating and of the validating configurations. */
  readonly mutatingRoot: string;
  readonly validatingRoot: string;
  readonly namespaces: ObjectLister;
  readonly client: WebhookClientDeps;
  readonly equivalentVersions?: (group: string, resource: string) => readonly string[];
  readonly authorize?: AuthorizeFunction;
  readonly redefault?: WebhookAdmissionOptions['redefault'];
}

export interface AdmissionWebhookWiring {
  readonly mutating: AdmissionPlugin;
  readonly validating: AdmissionPlugin;
  readonly metrics: WebhookMetrics;
  start(): Promise<void>;
  stop(): void;
}

export function admissionWebhooks(deps: AdmissionWebhookDeps): AdmissionWebhookWiring {
  const mutating = new WebhookConfigurations(deps.store, deps.mutatingRoot);
  const validating = new WebhookConfigurations(deps.store, deps.validatingRoot);
  const metrics = new WebhookMetrics();
  const common = {
    namespaces: deps.namespaces,
    client: deps.client,
    metrics,
    ...(deps.equivalentVersions ? { equivalentVersions: deps.equivalentVersions } : {}),
    ...(deps.authorize ? { authorize: deps.authorize } : {}),
    ...(deps.redefault ? { redefault: deps.redefault } : {}),
  };
  return {
    mutating: webhookAdmission({ ...common, configurations: mutating }, 'admit'),
    validating: webhookAdmission({ ...common, configurations: validating }, 'validate'),
    metrics,
    start: async () => {
      await Promise.all([mutating.start(), validating.start()]);
    },
    stop: () => {
      mutating.stop();
      validating.stop();
    },
  };
}
