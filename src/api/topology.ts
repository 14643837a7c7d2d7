// Well-known topology label (k8s.io/api/core/v1 well_known_labels.go): the zone a node is in,
// which EndpointSlices copy to their endpoints and zone hints name.

export const LABEL_TOPOLOGY_ZONE = 'topology.kubernetes.io/zone';
