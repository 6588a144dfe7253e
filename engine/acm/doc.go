// Package acm gives the ACM kinds stored by engine/kubeapi their meaning in
// the domain, as upstream's controllers do. It runs on the leader, its
// writes fenced to the term it leads in.
//
// An InfraEnv becomes the domain's infra-env (its id is the object's uid;
// the pull secret comes from the Secret its pullSecretRef names, opened
// with the secrets sealer; the NMStateConfigs its
// nmStateConfigLabelSelector selects are its static network); a later
// spec, Secret or NMStateConfig change is taken to it and regenerates the
// image when what it is made of changed. Its status gets isoDownloadURL
// (the ISO server's), bootArtifacts.ipxeScript (the infra-env's iPXE
// script URL with an agent token, as upstream's), the kernel, initrd (the
// PXE server's) and rootfs (all engine/downloads' Image, which the REST
// API's downloads are made by too), createdTime,
// observedGeneration and the ImageCreated condition; a missing pull
// secret or a bad NMStateConfig is ImageCreated False. Removing the
// InfraEnv deregisters its unbound hosts and removes the infra-env.
//
// A host that registers from such an infra-env gets an Agent (named by the
// host id, in the InfraEnv's namespace, labelled with the InfraEnv's name
// and its spec.agentLabels); the Agent's spec.approved, role and hostname
// are taken to the host, and the host's role, inventory hostname, stage
// and state are written to the Agent's status.
//
// A ClusterDeployment with its AgentClusterInstall, ClusterImageSet and
// pull secret becomes a domain cluster (id: the ACI's uid) through the
// Domain (engine/clusters.Domain: the services the REST API calls too,
// so its checks, commands and events); Agents naming the ClusterDeployment (or whose InfraEnv's
// clusterRef does, or whose labels its agentSelector selects) are bound
// to it; spec changes before the installation (and the manifests of its
// ConfigMaps) are taken to the cluster
// (Admission refuses them after its start); the installation starts by
// itself once the required Agents are approved and the cluster is ready;
// the ACI's and Agents' statuses get upstream's conditions; on completion
// the ClusterDeployment is installed with its admin Secrets; the ACI's
// ai-deprovision finalizer deregisters the cluster.
//
// Agents carry upstream's finalizer: deleting one deregisters its host;
// an Agent whose host is gone is deleted. A BareMetalHost object becomes
// a domain BareMetalHost that engine/bmhctl drives, and gets upstream's
// BMAC fields (spec.image, the inspect and hardwaredetails annotations)
// and metal3's status; the paired host's Agent is labelled with it.
// Admission refuses what upstream's webhooks refuse (ACI spec after the
// start, InfraEnv clusterRef, Agent clusterDeploymentName while
// installing, ClusterDeployment spec but hive's mutable fields).
//
// An Agent that no longer names its cluster's ClusterDeployment has its
// host unbound before the installation.
package acm
