// Package install is the leader-only install controller and what the
// installation needs from the model.
//
// Controller (run it under engine.WhileLeader) drives a cluster after the
// install action: in preparing-for-installation it builds the generator
// input from the model (Cluster), runs the image set's generator once
// (boot/installer: user-supplied role configs or openshift-install),
// stores the artifacts — role Ignition, install-config.yaml,
// metadata.json, kubeconfig and kubeadmin password — as the Secret
// engine.InstallSecretName(cluster), and moves the hosts through
// preparing-successful to installing and the cluster to installing. The
// hosts' agents then take the install step (engine/api). When every host
// is installed the cluster goes through finalizing to installed. A host
// back in discovery mid-install (installing-pending-user-action) holds the
// cluster in installing-pending-user-action. An installation that has not
// finished within the timeout (upstream's 20 minutes by default) puts the
// cluster, and its hosts that are not installed, in error with the
// reason. Every move is an event.
//
// Generated artifacts hold the pull secret: they are kept only in that
// Secret and never logged.
package install
