package install

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rackboot/rackboot/boot/installer"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/engine/validation"
)

// Details are what the installation needs from a host's inventory.
type Details struct {
	// Hostname is the requested hostname, else the inventory's.
	Hostname string
	// MACs are the host's interfaces' MAC addresses, lower case.
	MACs []string
	// Disk is the installation disk (nil: none chosen or not in the
	// inventory).
	Disk *models.Disk
}

// HostDetails reads h's inventory.
func HostDetails(h engine.Host) Details {
	var inv models.Inventory
	if len(h.Inventory) == 0 || json.Unmarshal(h.Inventory, &inv) != nil {
		return Details{Hostname: h.RequestedHostname}
	}
	d := Details{Hostname: validation.HostFacts{RequestedHostname: h.RequestedHostname, Inventory: &inv}.Hostname()}
	for _, i := range inv.Interfaces {
		if i != nil && i.MacAddress != "" {
			d.MACs = append(d.MACs, strings.ToLower(i.MacAddress))
		}
	}
	for _, disk := range inv.Disks {
		if disk != nil && disk.ID != "" && disk.ID == h.InstallationDiskID {
			d.Disk = disk
		}
	}
	return d
}

// BootDevice is the device the install step writes: the disk's path
// (/dev/vda), else its by-id or by-path name.
func (d Details) BootDevice() string {
	switch {
	case d.Disk == nil:
		return ""
	case d.Disk.Path != "":
		return d.Disk.Path
	case d.Disk.ByID != "":
		return d.Disk.ByID
	}
	return d.Disk.ByPath
}

// Cluster is the generator's view of cluster c in m: its settings, pull
// secret, the release image of its image set, manifests and hosts.
func Cluster(m *engine.Model, c engine.Cluster) (installer.Cluster, error) {
	ps, _ := m.PullSecret(c.PullSecretRef)
	if ps == "" {
		return installer.Cluster{}, fmt.Errorf("%w: cluster %s has no pull secret", ErrPrepare, c.ID)
	}
	out := installer.Cluster{ID: c.ID, Name: c.Name, BaseDomain: c.BaseDomain, OpenshiftVersion: c.OpenshiftVersion,
		PullSecret: ps, SSHPublicKey: c.SSHPublicKey, NetworkType: c.NetworkType,
		ServiceNetworks: c.ServiceNetworks, MachineNetworks: c.MachineNetworks, APIVIPs: c.APIVIPs,
		IngressVIPs: c.IngressVIPs, ControlPlaneCount: c.ControlPlaneCount,
		InstallConfigOverrides: c.InstallConfigOverrides}
	if is, ok := m.ClusterImageSet(c); ok {
		out.ReleaseImage = is.ReleaseImage
	}
	for _, n := range c.ClusterNetworks {
		out.ClusterNetworks = append(out.ClusterNetworks, installer.ClusterNetwork{CIDR: n.CIDR, HostPrefix: n.HostPrefix})
	}
	for _, mf := range c.Manifests {
		out.Manifests = append(out.Manifests, installer.Manifest{Folder: mf.Folder, FileName: mf.FileName, Content: mf.Content})
	}
	for h := range m.HostsOfCluster(c.ID) {
		out.Hosts = append(out.Hosts, Host(h))
	}
	return out, nil
}

// Host is the generator's view of h.
func Host(h engine.Host) installer.Host {
	d := HostDetails(h)
	return installer.Host{ID: h.ID, Hostname: d.Hostname, Role: h.Role, MACs: d.MACs, Bootstrap: h.Bootstrap,
		InstallationDisk: d.BootDevice()}
}

// Artifacts reads cluster id's stored install artifacts (nil: none yet).
// They are sealed at rest: a secret that does not open with this
// appliance's key reads as none.
func Artifacts(m *engine.Model, id string) *installer.Artifacts {
	s, ok, err := m.OpenSecret(engine.InstallSecretName(id))
	if !ok || err != nil {
		return nil
	}
	return &installer.Artifacts{Bootstrap: s.Data[engine.ArtifactBootstrap], Master: s.Data[engine.ArtifactMaster],
		Worker: s.Data[engine.ArtifactWorker], InstallConfig: s.Data[engine.ArtifactInstallConfig],
		Metadata: s.Data[engine.ArtifactMetadata], Kubeconfig: s.Data[engine.ArtifactKubeconfig],
		KubeadminPassword: s.Data[engine.ArtifactKubeadminPassword]}
}

// artifactSecret is the Secret holding a, without the parts a generator
// did not make.
func artifactSecret(clusterID string, a *installer.Artifacts) engine.Secret {
	data := map[string][]byte{}
	for k, v := range map[string][]byte{engine.ArtifactBootstrap: a.Bootstrap, engine.ArtifactMaster: a.Master,
		engine.ArtifactWorker: a.Worker, engine.ArtifactInstallConfig: a.InstallConfig,
		engine.ArtifactMetadata: a.Metadata, engine.ArtifactKubeconfig: a.Kubeconfig,
		engine.ArtifactKubeadminPassword: a.KubeadminPassword} {
		if len(v) > 0 {
			data[k] = v
		}
	}
	return engine.Secret{Name: engine.InstallSecretName(clusterID), Type: engine.InstallSecretType, Data: data}
}
