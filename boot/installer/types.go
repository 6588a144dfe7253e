package installer

import (
	"context"
	"errors"
	"fmt"
)

var (
	// ErrInvalidOverride: an Ignition override is not a valid Ignition
	// config (the error carries Ignition's message), or breaks the config
	// once merged.
	ErrInvalidOverride = errors.New("invalid ignition config override")
	// ErrInvalidInput: a host parameter or cluster field is malformed (the
	// error names it).
	ErrInvalidInput = errors.New("invalid installer input")
	// ErrRoleConfig: a role config (supplied or generated) is missing or is
	// not a valid Ignition config.
	ErrRoleConfig = errors.New("invalid role config")
	// ErrInstallConfigOverride: install_config_overrides is not a JSON
	// object, or the merged install-config is not one.
	ErrInstallConfigOverride = errors.New("invalid install_config_overrides")
	// ErrGenerator: the openshift-install run failed (exit status, missing
	// or invalid output); the error carries its stderr, scrubbed.
	ErrGenerator = errors.New("openshift-install failed")
	// ErrNoRole: a host's role has no role config.
	ErrNoRole = errors.New("no role config for host")
)

// ClusterNetwork is one entry of networking.clusterNetwork.
type ClusterNetwork struct {
	CIDR       string
	HostPrefix int
}

// Host is one host of a cluster as the generators see it.
type Host struct {
	ID, Hostname, Role string // Role: "master" or "worker"
	MACs               []string
	Bootstrap          bool
	// InstallationDisk is the disk the host installs to (e.g. /dev/vda or
	// a /dev/disk/by-id name); for single node it becomes install-config's
	// bootstrapInPlace.installationDisk.
	InstallationDisk string
}

// Manifest is a custom manifest of the cluster.
type Manifest struct {
	Folder   string // "manifests" or "openshift"
	FileName string // a base name, e.g. 50-extra.yaml
	Content  []byte
}

// Cluster is everything a generator needs from a cluster.
type Cluster struct {
	ID, Name, BaseDomain string
	OpenshiftVersion     string
	// ReleaseImage is handed to openshift-install as
	// OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE when set.
	ReleaseImage string
	PullSecret   string // a secret: never logged, scrubbed from errors
	SSHPublicKey string
	NetworkType  string // "" is DefaultNetworkType

	ClusterNetworks                  []ClusterNetwork
	ServiceNetworks, MachineNetworks []string
	APIVIPs, IngressVIPs             []string
	ControlPlaneCount                int // 1 is single node (bootstrap in place)
	Hosts                            []Host

	// InstallConfigOverrides is a JSON document merged over the generated
	// install-config (JSON merge patch, RFC 7386).
	InstallConfigOverrides string
	Manifests              []Manifest
}

// SingleNode reports whether c is a single-node cluster (bootstrap in place).
func (c Cluster) SingleNode() bool { return c.ControlPlaneCount == 1 }

// Artifacts is what a generator produces. Bootstrap, Master and Worker are
// Ignition configs. Bootstrap is always set: for single node it is the
// bootstrap-in-place config (the same as Master), for user configs without
// bootstrap.ign it is Master. Kubeconfig and KubeadminPassword are nil when
// the generator has none (user configs).
type Artifacts struct {
	Bootstrap, Master, Worker, InstallConfig, Metadata, Kubeconfig, KubeadminPassword []byte
}

// RoleConfig returns the role config host h installs: Bootstrap for the
// bootstrap host, else Master or Worker by role.
func (a *Artifacts) RoleConfig(h Host) ([]byte, error) {
	var raw []byte
	switch {
	case h.Bootstrap:
		raw = a.Bootstrap
	case h.Role == "master":
		raw = a.Master
	case h.Role == "worker":
		raw = a.Worker
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("%w: host %s role %q bootstrap %v", ErrNoRole, h.ID, h.Role, h.Bootstrap)
	}
	return raw, nil
}

// Generator produces the role configs and files of a cluster.
type Generator interface {
	Generate(ctx context.Context, c Cluster) (*Artifacts, error)
}
