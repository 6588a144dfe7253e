// Package acm gives the ACM kinds stored by engine/kubeapi their meaning in
// the domain, as upstream's controllers do. It runs on the leader, its
// writes fenced to the term it leads in.
//
// So far: an InfraEnv becomes the domain's infra-env (its id is the
// object's uid; the pull secret comes from the Secret its pullSecretRef
// names, opened with the secrets sealer), and its status gets
// bootArtifacts.ipxeScript (the infra-env's iPXE script URL with an agent
// token, as upstream's) and the ImageCreated condition; a missing pull
// secret is ImageCreated False. Removing the InfraEnv removes the
// infra-env. Spec changes after creation, clusterRef, NMStateConfigs,
// Agents and the cluster kinds are not handled yet.
package acm
