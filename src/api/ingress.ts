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
export const LEGACY_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

/** Whether tkube's controller serves `ingress`, given the IngressClasses that exist. */
export function servedByTkube(ingress: Ingress, classes: readonly IngressClass[]): boolean {
  const ours = new Set(
    classes.filter((c) => c.spec?.controller === INGRESS_CONTROLLER_NAME).map((c) => c.metadata?.name ?? ''),
  );
  const named = ingress.spec?.ingressClassName ?? ingress.metadata?.annotations?.[LEGACY_CLASS_ANNOTATION];
  if (named !== undefined) return ours.has(named);
  // An Ingress created while no default class existed: the class it would get now.
  return defaultIngressClass(classes)?.spec?.controller === INGRESS_CONTROLLER_NAME;
}

/**
 * The default IngressClass as the DefaultIngressClass admission plugin picks it: of those
 * annotated default, the newest; of equally new ones, the first by name.
 */
export function defaultIngressClass<T extends IngressClass>(classes: readonly T[]): T | undefined {
  const created = (c: IngressClass) => Date.parse(c.metadata?.creationTimestamp ?? '') || 0;
  const byName = (a: IngressClass, b: IngressClass) => {
    const [x, y] = [a.metadata?.name ?? '', b.metadata?.name ?? ''];
    return x < y ? -1 : x > y ? 1 : 0;
  };
  return classes
    .filter((c) => c.metadata?.annotations?.[DEFAULT_INGRESS_CLASS_ANNOTATION] === 'true')
    .sort((a, b) => created(b) - created(a) || byName(a, b))[0];
}
