// The names of the in-tree plugins, as kube-scheduler's configuration spells them.
export const PluginNames = {
  PrioritySort: 'PrioritySort',
  SchedulingGates: 'SchedulingGates',
  NodeUnschedulable: 'NodeUnschedulable',
  NodeName: 'NodeName',
  TaintToleration: 'TaintToleration',
  NodeAffinity: 'NodeAffinity',
  NodePorts: 'NodePorts',
  NodeResourcesFit: 'NodeResourcesFit',
  PodTopologySpread: 'PodTopologySpread',
  InterPodAffinity: 'InterPodAffinity',
  DefaultPreemption: 'DefaultPreemption',
  NodeResourcesBalancedAllocation: 'NodeResourcesBalancedAllocation',
  ImageLocality: 'ImageLocality',
  DefaultBinder: 'DefaultBinder',
  VolumeRestrictions: 'VolumeRestrictions',
  VolumeBinding: 'VolumeBinding',
} as const;
