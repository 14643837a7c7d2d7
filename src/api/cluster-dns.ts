// The cluster DNS service as kubeadm and kind set it up: `kube-system/kube-dns` at the tenth
// address of the service network, serving the `cluster.local` domain (the kubelet's
// --cluster-dns and --cluster-domain). Shared by the control plane, which creates the service,
// and the agents, which serve it and point pods at it.

export const CLUSTER_DNS_IP = '10.96.0.10';
export const CLUSTER_DOMAIN = 'cluster.local';
export const CLUSTER_DNS_NAMESPACE = 'kube-system';
export const CLUSTER_DNS_SERVICE = 'kube-dns';
/** The labels kind's (CoreDNS's) kube-dns service carries, which tools select it by. */
export const CLUSTER_DNS_LABELS: Readonly<Record<string, string>> = {
  'k8s-app': 'kube-dns',
  'kubernetes.io/cluster-service': 'true',
  'kubernetes.io/name': 'CoreDNS',
};
/** CoreDNS's Prometheus port (the service's `metrics` port). */
export const CLUSTER_DNS_METRICS_PORT = 9153;
