// tkube's ingress controller as the cluster sees it: the IngressClass `tkube` (the default
// class) naming the controller `tkube.dev/ingress`, which every node's agent runs, and the
// LoadBalancer service `kube-system/tkube-ingress` whose endpoints are the agents' ports 80 and
// 443. Shared by the control plane, which creates them, and the agents, which serve them.
import type { Ingress, IngressClass } from './types/networking-v1.generated.js';

export const INGRESS_CLASS_NAME = 'tkube';
export const INGRESS_CONTROLLER_NAME = 'tkube.dev/ingress';
export const DEFAULT_INGRESS_CLASS_ANNOTATION = 'ingressclass.kubernetes.io/is-default-class';
export const INGRESS_SERVICE_NAMESPACE = 'kube-system';
export const INGRESS_SERVICE = 'tkube-ingress';
export const INGRESS_HTTP_PORT = 80;
export const INGRESS_HTTPS_PORT = 443;
const LEGACY_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

/** Whether tkube's controller serves `ingress`, given the IngressClasses that exist. */
export function servedByTkube(ingress: Ingress, classes: readonly IngressClass[]): boolean {
  const ours = new Set(
    classes.filter((c) => c.spec?.controller === INGRESS_CONTROLLER_NAME).map((c) => c.metadata?.name ?? ''),
  );
  const named = ingress.spec?.ingressClassName ?? ingress.metadata?.annotations?.[LEGACY_CLASS_ANNOTATION];
  if (named !== undefined) return ours.has(named);
  const defaults = classes.filter(
    (c) => c.metadata?.annotations?.[DEFAULT_INGRESS_CLASS_ANNOTATION] === 'true',
  );
  // With more than one default class none is chosen, as upstream's admission refuses to pick.
  return defaults.length === 1 && defaults[0]!.spec?.controller === INGRESS_CONTROLLER_NAME;
}
