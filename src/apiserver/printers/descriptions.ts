// The column descriptions kube-apiserver 1.33 sends in Table responses. Kubernetes takes most of them from
// the field documentation of the API types (their SwaggerDoc), some from API versions no longer served
// (extensions/v1beta1, batch/v1beta1, ...); keys are `<group>/<version>.<Type>.<field>`.

const DESCRIPTIONS = {
  'meta/v1.ObjectMeta.name':
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  'meta/v1.ObjectMeta.creationTimestamp':
    'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
  'meta/v1.Status.status':
    'Status of the operation. One of: "Success" or "Failure". More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status',
  'meta/v1.Status.reason':
    'A machine-readable description of why this operation is in the "Failure" status. If this value is empty there is no information available. A Reason clarifies an HTTP status code but does not override it.',
  'core/v1.PodStatus.podIP':
    'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.',
  'core/v1.PodStatus.nominatedNodeName':
    'nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.',
  'core/v1.PodSpec.nodeName':
    'NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename',
  'core/v1.PodSpec.readinessGates':
    'If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to "True" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates',
  'core/v1.PodSpec.nodeSelector':
    "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/",
  'core/v1.ReplicationControllerSpec.replicas':
    'Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller',
  'core/v1.ReplicationControllerSpec.selector':
    'Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is defaulted to the labels present on the Pod template. Label keys and values that must match in order to be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
  'core/v1.ReplicationControllerStatus.replicas':
    'Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller',
  'core/v1.ReplicationControllerStatus.readyReplicas':
    'The number of ready replicas for this replication controller.',
  'core/v1.ServiceSpec.type':
    'type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer. "ClusterIP" allocates a cluster-internal IP address for load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is "None", no virtual IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. "NodePort" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the clusterIP. "LoadBalancer" builds on NodePort and creates an external load-balancer (if supported in the current cloud) which routes to the same endpoints as the clusterIP. "ExternalName" aliases this service to the specified externalName. Several other fields do not apply to ExternalName services. More info: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types',
  'core/v1.ServiceSpec.clusterIP':
    'clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName (which requires this field to be blank) or the type field is being changed from ExternalName (in which case this field may optionally be specified, as describe above).  Valid values are "None", empty string (""), or a valid IP address. Setting this to "None" makes a "headless service" (no virtual IP), which is useful when direct endpoint connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If this field is specified when creating a Service of type ExternalName, creation will fail. This field will be wiped when updating a Service to type ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies',
  'core/v1.ServiceSpec.externalIPs':
    'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic arrives at a node with this IP.  A common example is external load-balancers that are not part of the Kubernetes system.',
  'core/v1.ServiceSpec.ports':
    'The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies',
  'core/v1.ServiceSpec.selector':
    'Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/',
  'core/v1.Endpoints.subsets':
    'The set of all endpoints is the union of all subsets. Addresses are placed into subsets according to the IPs they share. A single address with multiple ports, some of which are ready and some of which are not (because they come from different containers) will result in the address being displayed in different subsets for the different ports. No address will appear in both Addresses and NotReadyAddresses in the same subset. Sets of addresses and ports that comprise a service.',
  'core/v1.NodeSystemInfo.kubeletVersion': 'Kubelet Version reported by the node.',
  'core/v1.NodeSystemInfo.osImage':
    'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).',
  'core/v1.NodeSystemInfo.kernelVersion':
    "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
  'core/v1.NodeSystemInfo.containerRuntimeVersion':
    'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).',
  'core/v1.NodeStatus.addresses':
    "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP).",
  'core/v1.Event.lastTimestamp': 'The time at which the most recent occurrence of this event was recorded.',
  'core/v1.Event.type': 'Type of this event (Normal, Warning), new types could be added in the future',
  'core/v1.Event.reason':
    "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
  'core/v1.Event.involvedObject': 'The object that this event is about.',
  'core/v1.Event.source':
    'The component reporting this event. Should be a short machine understandable string.',
  'core/v1.Event.message': 'A human-readable description of the status of this operation.',
  'core/v1.Event.firstTimestamp':
    'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)',
  'core/v1.Event.count': 'The number of times this event has occurred.',
  'core/v1.ObjectReference.fieldPath':
    'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: "spec.containers{name}" (where "name" refers to the name of the container that triggered the event) or if no container name is specified "spec.containers[2]" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.',
  'core/v1.Secret.type':
    'Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types',
  'core/v1.Secret.data':
    "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4",
  'core/v1.ServiceAccount.secrets':
    'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use. Pods are only limited to this list if this service account has a "kubernetes.io/enforce-mountable-secrets" annotation set to "true". The "kubernetes.io/enforce-mountable-secrets" annotation is deprecated since v1.32. Prefer separate namespaces to isolate access to mounted secrets. This field should not be used to find auto-generated service account token secrets for use outside of pods. Instead, tokens can be requested directly using the TokenRequest API, or service account token secrets can be manually created. More info: https://kubernetes.io/docs/concepts/configuration/secret',
  'core/v1.PersistentVolumeSpec.capacity':
    "capacity is the description of the persistent volume's resources and capacity. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity",
  'core/v1.PersistentVolumeSpec.accessModes':
    'accessModes contains all ways the volume can be mounted. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes',
  'core/v1.PersistentVolumeSpec.persistentVolumeReclaimPolicy':
    'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim. Valid options are Retain (default for manually created PersistentVolumes), Delete (default for dynamically provisioned PersistentVolumes), and Recycle (deprecated). Recycle must be supported by the volume plugin underlying this PersistentVolume. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming',
  'core/v1.PersistentVolumeSpec.claimRef':
    'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is the authoritative bind between PV and PVC. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding',
  'core/v1.PersistentVolumeSpec.volumeMode':
    'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state. Value of Filesystem is implied when not included in spec.',
  'core/v1.PersistentVolumeStatus.phase':
    'phase indicates if a volume is available, bound to a claim, or released by a claim. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase',
  'core/v1.PersistentVolumeStatus.reason':
    'reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.',
  'core/v1.PersistentVolumeClaimStatus.phase': 'phase represents the current phase of PersistentVolumeClaim.',
  'core/v1.PersistentVolumeClaimStatus.capacity':
    'capacity represents the actual resources of the underlying volume.',
  'core/v1.PersistentVolumeClaimStatus.accessModes':
    'accessModes contains the actual access modes the volume backing the PVC has. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1',
  'core/v1.PersistentVolumeClaimSpec.volumeName':
    'volumeName is the binding reference to the PersistentVolume backing this claim.',
  'core/v1.PersistentVolumeClaimSpec.volumeMode':
    'volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec.',
  'core/v1.ConfigMap.data':
    "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
  'extensions/v1beta1.ReplicaSetSpec.replicas':
    'Replicas is the number of desired pods. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicaset',
  'extensions/v1beta1.ReplicaSetSpec.selector':
    'Selector is a label query over pods that should match the replica count. If the selector is empty, it is defaulted to the labels present on the pod template. Label keys and values that must match in order to be controlled by this replica set. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
  'extensions/v1beta1.ReplicaSetStatus.replicas':
    'Replicas is the most recently observed number of non-terminating pods. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicaset',
  'extensions/v1beta1.ReplicaSetStatus.readyReplicas':
    'The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition.',
  'extensions/v1beta1.DaemonSetStatus.desiredNumberScheduled':
    'The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/',
  'extensions/v1beta1.DaemonSetStatus.currentNumberScheduled':
    'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/',
  'extensions/v1beta1.DaemonSetStatus.numberReady':
    'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.',
  'extensions/v1beta1.DaemonSetStatus.updatedNumberScheduled':
    'The total number of nodes that are running updated daemon pod',
  'extensions/v1beta1.DaemonSetStatus.numberAvailable':
    'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)',
  'extensions/v1beta1.DaemonSetSpec.selector':
    'A label query over pods that are managed by the daemon set. Must match in order to be controlled. If empty, defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
  'extensions/v1beta1.DeploymentStatus.updatedReplicas':
    'Total number of non-terminating pods targeted by this deployment that have the desired template spec.',
  'extensions/v1beta1.DeploymentStatus.availableReplicas':
    'Total number of available non-terminating pods (ready for at least minReadySeconds) targeted by this deployment.',
  'extensions/v1beta1.DeploymentSpec.selector':
    'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.',
  'extensions/v1beta1.NetworkPolicySpec.podSelector':
    'Selects the pods to which this NetworkPolicy object applies.  The array of ingress rules is applied to any pods selected by this field. Multiple network policies can select the same set of pods.  In this case, the ingress rules for each are combined additively. This field is NOT optional and follows standard label selector semantics. An empty podSelector matches all pods in this namespace.',
  'batch/v1.JobStatus.succeeded':
    'The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. However, it may decrease in reaction to scale down of elastic indexed jobs.',
  'batch/v1.JobSpec.selector':
    'A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
  'batch/v1beta1.CronJobSpec.schedule':
    'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.',
  'batch/v1beta1.CronJobSpec.timeZone':
    'The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to the time zone of the kube-controller-manager process. The set of valid time zone names and the time zone offset is loaded from the system-wide time zone database by the API server during CronJob validation and the controller manager during execution. If no system-wide time zone database can be found a bundled version of the database is used instead. If the time zone name becomes invalid during the lifetime of a CronJob or due to a change in host configuration, the controller will stop creating new new Jobs and will create a system event with the reason UnknownTimeZone. More information can be found in https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones',
  'batch/v1beta1.CronJobSpec.suspend':
    'This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.',
  'batch/v1beta1.CronJobStatus.active': 'A list of pointers to currently running jobs.',
  'batch/v1beta1.CronJobStatus.lastScheduleTime':
    'Information when was the last time the job was successfully scheduled.',
  'autoscaling/v2beta1.HorizontalPodAutoscalerSpec.scaleTargetRef':
    'scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.',
  'autoscaling/v2beta1.HorizontalPodAutoscalerSpec.metrics':
    'metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).  The desired replica count is calculated multiplying the ratio between the target value and the current value by the current number of pods.  Ergo, metrics used must decrease as the pod count is increased, and vice-versa.  See the individual metric source types for more information about how each type of metric must respond.',
  'autoscaling/v2beta1.HorizontalPodAutoscalerSpec.minReplicas':
    'minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled and at least one Object or External metric is configured.  Scaling is active as long as at least one metric value is available.',
  'autoscaling/v2beta1.HorizontalPodAutoscalerSpec.maxReplicas':
    'maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot be less that minReplicas.',
  'autoscaling/v2beta1.HorizontalPodAutoscalerStatus.currentReplicas':
    'currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.',
  'autoscaling/v1.ScaleSpec.replicas': 'replicas is the desired number of instances for the scaled object.',
  'autoscaling/v1.ScaleStatus.replicas':
    'replicas is the actual number of observed instances of the scaled object.',
  'rbac/v1beta1.RoleBinding.roleRef':
    'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
  'rbac/v1beta1.ClusterRoleBinding.roleRef':
    'RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
  'certificates/v1beta1.CertificateSigningRequestSpec.signerName':
    'Requested signer for the request. It is a qualified name in the form: `scope-hostname.io/name`. If empty, it will be defaulted:\n 1. If it\'s a kubelet client certificate, it is assigned\n    "kubernetes.io/kube-apiserver-client-kubelet".\n 2. If it\'s a kubelet serving certificate, it is assigned\n    "kubernetes.io/kubelet-serving".\n 3. Otherwise, it is assigned "kubernetes.io/legacy-unknown".\nDistribution of trust for signers happens out of band. You can select on this field using `spec.signerName`.',
  'certificates/v1beta1.CertificateSigningRequestSpec.request': 'Base64-encoded PKCS#10 CSR data',
  'certificates/v1beta1.CertificateSigningRequestSpec.expirationSeconds':
    'expirationSeconds is the requested duration of validity of the issued certificate. The certificate signer may issue a certificate with a different validity duration so a client must check the delta between the notBefore and and notAfter fields in the issued certificate to determine the actual duration.\n\nThe v1.22+ in-tree implementations of the well-known Kubernetes signers will honor this field as long as the requested duration is not greater than the maximum duration they will honor per the --cluster-signing-duration CLI flag to the Kubernetes controller manager.\n\nCertificate signers may not honor this field for various reasons:\n\n  1. Old signer that is unaware of the field (such as the in-tree\n     implementations prior to v1.22)\n  2. Signer whose configured maximum is shorter than the requested duration\n  3. Signer whose configured minimum is longer than the requested duration\n\nThe minimum valid value for expirationSeconds is 600, i.e. 10 minutes.',
  'certificates/v1beta1.CertificateSigningRequestStatus.conditions':
    'Conditions applied to the request, such as approval or denial.',
  'certificates/v1alpha1.ClusterTrustBundleSpec.signerName':
    "signerName indicates the associated signer, if any.\n\nIn order to create or update a ClusterTrustBundle that sets signerName, you must have the following cluster-scoped permission: group=certificates.k8s.io resource=signers resourceName=<the signer name> verb=attest.\n\nIf signerName is not empty, then the ClusterTrustBundle object must be named with the signer name as a prefix (translating slashes to colons). For example, for the signer name `example.com/foo`, valid ClusterTrustBundle object names include `example.com:foo:abc` and `example.com:foo:v1`.\n\nIf signerName is empty, then the ClusterTrustBundle object's name must not have such a prefix.\n\nList/watch requests for ClusterTrustBundles can filter on this field using a `spec.signerName=NAME` field selector.",
  'coordination/v1.LeaseSpec.holderIdentity':
    'holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.',
  'coordination/v1alpha2.LeaseCandidateSpec.leaseName':
    'LeaseName is the name of the lease for which this candidate is contending. This field is immutable.',
  'storage/v1.StorageClass.provisioner': 'provisioner indicates the type of the provisioner.',
  'storage/v1.StorageClass.reclaimPolicy':
    'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.',
  'storage/v1.StorageClass.volumeBindingMode':
    'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling feature.',
  'storage/v1.StorageClass.allowVolumeExpansion':
    'allowVolumeExpansion shows whether the storage class allow volume expand.',
  'storage/v1.VolumeAttachmentSpec.attacher':
    'attacher indicates the name of the volume driver that MUST handle this request. This is the name returned by GetPluginName().',
  'storage/v1.VolumeAttachmentSpec.nodeName':
    'nodeName represents the node that the volume should be attached to.',
  'storage/v1.VolumeAttachmentSource.persistentVolumeName':
    'persistentVolumeName represents the name of the persistent volume to attach.',
  'storage/v1.VolumeAttachmentStatus.attached':
    'attached indicates the volume is successfully attached. This field must only be set by the entity completing the attach operation, i.e. the external-attacher.',
  'storage/v1.CSIDriverSpec.attachRequired':
    'attachRequired indicates this CSI volume driver requires an attach operation (because it implements the CSI ControllerPublishVolume() method), and that the Kubernetes attach detach controller should call the attach volume interface which checks the volumeattachment status and waits until the volume is attached before proceeding to mounting. The CSI external-attacher coordinates with CSI volume driver and updates the volumeattachment status when the attach operation is complete. If the CSIDriverRegistry feature gate is enabled and the value is specified to false, the attach operation will be skipped. Otherwise the attach operation will be called.\n\nThis field is immutable.',
  'storage/v1.CSIDriverSpec.podInfoOnMount':
    'podInfoOnMount indicates this CSI volume driver requires additional pod information (like podName, podUID, etc.) during mount operations, if set to true. If set to false, pod information will not be passed on mount. Default is false.\n\nThe CSI driver specifies podInfoOnMount as part of driver deployment. If true, Kubelet will pass pod information as VolumeContext in the CSI NodePublishVolume() calls. The CSI driver is responsible for parsing and validating the information passed in as VolumeContext.\n\nThe following VolumeContext will be passed if podInfoOnMount is set to true. This list might grow, but the prefix will be used. "csi.storage.k8s.io/pod.name": pod.Name "csi.storage.k8s.io/pod.namespace": pod.Namespace "csi.storage.k8s.io/pod.uid": string(pod.UID) "csi.storage.k8s.io/ephemeral": "true" if the volume is an ephemeral inline volume\n                                defined by a CSIVolumeSource, otherwise "false"\n\n"csi.storage.k8s.io/ephemeral" is a new feature in Kubernetes 1.16. It is only required for drivers which support both the "Persistent" and "Ephemeral" VolumeLifecycleMode. Other drivers can leave pod info disabled and/or ignore this field. As Kubernetes 1.15 doesn\'t support this field, drivers can only support one mode when deployed on such a cluster and the deployment determines which mode that is, for example via a command line parameter of the driver.\n\nThis field was immutable in Kubernetes < 1.29 and now is mutable.',
  'storage/v1.CSIDriverSpec.storageCapacity':
    'storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage capacity that the driver deployment will report by creating CSIStorageCapacity objects with capacity information, if set to true.\n\nThe check can be enabled immediately when deploying a driver. In that case, provisioning new volumes with late binding will pause until the driver deployment has published some suitable CSIStorageCapacity object.\n\nAlternatively, the driver can be deployed with the field unset or false and it can be flipped later when storage capacity information has been published.\n\nThis field was immutable in Kubernetes <= 1.22 and now is mutable.',
  'storage/v1.CSIDriverSpec.tokenRequests':
    'tokenRequests indicates the CSI driver needs pods\' service account tokens it is mounting volume for to do necessary authentication. Kubelet will pass the tokens in VolumeContext in the CSI NodePublishVolume calls. The CSI driver should parse and validate the following VolumeContext: "csi.storage.k8s.io/serviceAccount.tokens": {\n  "<audience>": {\n    "token": <token>,\n    "expirationTimestamp": <expiration timestamp in RFC3339>,\n  },\n  ...\n}\n\nNote: Audience in each TokenRequest should be different and at most one token is empty string. To receive a new token after expiry, RequiresRepublish can be used to trigger NodePublishVolume periodically.',
  'storage/v1.CSIDriverSpec.requiresRepublish':
    'requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called to reflect any possible change in the mounted volume. This field defaults to false.\n\nNote: After a successful initial NodePublishVolume call, subsequent calls to NodePublishVolume should only update the contents of the volume. New mount points will not be seen by a running container.',
  'storage/v1.CSIDriverSpec.volumeLifecycleModes':
    'volumeLifecycleModes defines what kind of volumes this CSI volume driver supports. The default if the list is empty is "Persistent", which is the usage defined by the CSI specification and implemented in Kubernetes via the usual PV/PVC mechanism.\n\nThe other mode is "Ephemeral". In this mode, volumes are defined inline inside the pod spec with CSIVolumeSource and their lifecycle is tied to the lifecycle of that pod. A driver has to be aware of this because it is only going to get a NodePublishVolume call for such a volume.\n\nFor more information about implementing this mode, see https://kubernetes-csi.github.io/docs/ephemeral-local-volumes.html A driver can support one or more of these modes and more modes may be added in the future.\n\nThis field is beta. This field is immutable.',
  'storage/v1.CSIStorageCapacity.storageClassName':
    'storageClassName represents the name of the StorageClass that the reported capacity applies to. It must meet the same requirements as the name of a StorageClass object (non-empty, DNS subdomain). If that object no longer exists, the CSIStorageCapacity object is obsolete and should be removed by its creator. This field is immutable.',
  'storage/v1.CSIStorageCapacity.capacity':
    'capacity is the value reported by the CSI driver in its GetCapacityResponse for a GetCapacityRequest with topology and parameters that match the previous fields.\n\nThe semantic is currently (CSI spec 1.2) defined as: The available capacity, in bytes, of the storage that can be used to provision volumes. If not set, that information is currently unavailable.',
  'storage/v1beta1.VolumeAttributesClass.driverName': 'Name of the CSI driver This field is immutable.',
  'apps/v1beta1.ControllerRevision.revision':
    'revision indicates the revision of the state represented by Data.',
  'scheduling/v1.PriorityClass.value':
    'value represents the integer value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec.',
  'scheduling/v1.PriorityClass.globalDefault':
    'globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`. However, if more than one PriorityClasses exists with their `globalDefault` field set to true, the smallest value of such global default PriorityClasses will be used as the default priority.',
  'scheduling/v1.PriorityClass.preemptionPolicy':
    'preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.',
  'discovery/v1beta1.EndpointSlice.addressType':
    'addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice must be the same type. This field is immutable after creation. The following address types are currently supported: * IPv4: Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: Represents a Fully Qualified Domain Name.',
  'discovery/v1beta1.EndpointSlice.ports':
    'ports specifies the list of network ports exposed by each endpoint in this slice. Each port must have a unique name. When ports is empty, it indicates that there are no defined ports. When a port is defined with a nil port value, it indicates "all ports". Each slice may include a maximum of 100 ports.',
  'discovery/v1beta1.EndpointSlice.endpoints':
    'endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of 1000 endpoints.',
  'flowcontrol/v1.PriorityLevelConfigurationReference.name':
    '`name` is the name of the priority level configuration being referenced Required.',
  'flowcontrol/v1.FlowSchemaSpec.matchingPrecedence':
    '`matchingPrecedence` is used to choose among the FlowSchemas that match a given request. The chosen FlowSchema is among those with the numerically lowest (which we take to be logically highest) MatchingPrecedence.  Each MatchingPrecedence value must be ranged in [1,10000]. Note that if the precedence is not specified, it will be set to 1000 as default.',
  'flowcontrol/v1.FlowSchemaSpec.distinguisherMethod':
    '`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema. `nil` specifies that the distinguisher is disabled and thus will always be the empty string.',
  'flowcontrol/v1.PriorityLevelConfigurationSpec.type':
    '`type` indicates whether this priority level is subject to limitation on request execution.  A value of `"Exempt"` means that requests of this priority level are not subject to a limit (and thus are never queued) and do not detract from the capacity made available to other priority levels.  A value of `"Limited"` means that (a) requests of this priority level _are_ subject to limits and (b) some of the server\'s limited capacity is made available exclusively to this priority level. Required.',
  'flowcontrol/v1.LimitedPriorityLevelConfiguration.nominalConcurrencyShares':
    '`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level. This is the number of execution seats available at this priority level. This is used both for requests dispatched from this priority level as well as requests dispatched from other priority levels borrowing seats from this level. The server\'s concurrency limit (ServerCL) is divided among the Limited priority levels in proportion to their NCS values:\n\nNominalCL(i)  = ceil( ServerCL * NCS(i) / sum_ncs ) sum_ncs = sum[priority level k] NCS(k)\n\nBigger numbers mean a larger nominal concurrency limit, at the expense of every other priority level.\n\nIf not specified, this field defaults to a value of 30.\n\nSetting this field to zero supports the construction of a "jail" for this priority level that is used to hold some request(s)',
  'flowcontrol/v1.QueuingConfiguration.queues':
    '`queues` is the number of queues for this priority level. The queues exist independently at each apiserver. The value must be positive.  Setting it to 1 effectively precludes shufflesharding and thus makes the distinguisher method of associated flow schemas irrelevant.  This field has a default value of 64.',
  'flowcontrol/v1.QueuingConfiguration.handSize':
    "`handSize` is a small positive number that configures the shuffle sharding of requests into queues.  When enqueuing a request at this priority level the request's flow identifier (a string pair) is hashed and the hash value is used to shuffle the list of queues and deal a hand of the size specified here.  The request is put into one of the shortest queues in that hand. `handSize` must be no larger than `queues`, and should be significantly smaller (so that a few heavy flows do not saturate most of the queues).  See the user-facing documentation for more extensive guidance on setting this field.  This field has a default value of 8.",
  'flowcontrol/v1.QueuingConfiguration.queueLengthLimit':
    '`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time; excess requests are rejected.  This value must be positive.  If not specified, it will be defaulted to 50.',
  'apiserverinternal/v1alpha1.StorageVersionStatus.commonEncodingVersion':
    'If all API server instances agree on the same encoding storage version, then this field is set to that version. Otherwise this field is left empty. API servers should finish updating its storageVersionStatus entry before serving write operations, so that this field will be in sync with the reality.',
  'apiserverinternal/v1alpha1.StorageVersionStatus.storageVersions':
    'The reported versions per API server instance.',
  'resource/v1beta1.ResourceSliceSpec.nodeName':
    'NodeName identifies the node which provides the resources in this pool. A field selector can be used to list only ResourceSlice objects belonging to a certain node.\n\nThis field can be used to limit access from nodes to ResourceSlices with the same node name. It also indicates to autoscalers that adding new nodes of the same type as some old node might also make new resources available.\n\nExactly one of NodeName, NodeSelector, AllNodes, and PerDeviceNodeSelection must be set. This field is immutable.',
  'resource/v1beta1.ResourceSliceSpec.driver':
    'Driver identifies the DRA driver providing the capacity information. A field selector can be used to list only ResourceSlice objects with a certain driver name.\n\nMust be a DNS subdomain and should end with a DNS domain owned by the vendor of the driver. This field is immutable.',
  'resource/v1beta1.ResourcePool.name':
    'Name is used to identify the pool. For node-local devices, this is often the node name, but this is not required.\n\nIt must not be longer than 253 characters and must consist of one or more DNS sub-domains separated by slashes. This field is immutable.',
  'networking/v1beta1.ServiceCIDRSpec.cidrs':
    'CIDRs defines the IP blocks in CIDR notation (e.g. "192.168.0.0/24" or "2001:db8::/64") from which to assign service cluster IPs. Max of two CIDRs is allowed, one of each IP family. This field is immutable.',
  'networking/v1beta1.IPAddressSpec.parentRef':
    'ParentRef references the resource that an IPAddress is attached to. An IPAddress must reference a parent object.',
} as const;

export type DescriptionKey = keyof typeof DESCRIPTIONS;

/** The documentation Kubernetes shows for a field in a column definition. */
export function fieldDescription(key: DescriptionKey): string {
  return DESCRIPTIONS[key];
}
