package installer

// testPullSecret looks like a real pull secret; tests check it never shows.
const testPullSecret = `{"auths":{"quay.io":{"auth":"c2VjcmV0LXVzZXI6c2VjcmV0LXBhc3N3b3Jk","email":"ops@rack.example"}}}`

const testSSHKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeKeyForTests demo@rack"

// multiNodeCluster is three control-plane hosts and one worker.
func multiNodeCluster() Cluster {
	return Cluster{
		ID: "5f0c2a1e-8b0e-4c55-9d6e-1c2f3a4b5c6d", Name: "demo", BaseDomain: "rack.example",
		OpenshiftVersion: "4.16", ReleaseImage: "quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64",
		PullSecret: testPullSecret, SSHPublicKey: testSSHKey, NetworkType: "OVNKubernetes",
		ClusterNetworks:   []ClusterNetwork{{CIDR: "10.128.0.0/14", HostPrefix: 23}},
		ServiceNetworks:   []string{"172.30.0.0/16"},
		MachineNetworks:   []string{"192.0.2.0/24"},
		APIVIPs:           []string{"192.0.2.100"},
		IngressVIPs:       []string{"192.0.2.101"},
		ControlPlaneCount: 3,
		Hosts: []Host{
			{ID: "h0", Hostname: "master-0", Role: "master", MACs: []string{"52:54:00:00:00:10"}, Bootstrap: true, InstallationDisk: "/dev/vda"},
			{ID: "h1", Hostname: "master-1", Role: "master", MACs: []string{"52:54:00:00:00:11"}, InstallationDisk: "/dev/vda"},
			{ID: "h2", Hostname: "master-2", Role: "master", MACs: []string{"52:54:00:00:00:12"}, InstallationDisk: "/dev/vda"},
			{ID: "h3", Hostname: "worker-0", Role: "worker", MACs: []string{"52:54:00:00:00:13"}, InstallationDisk: "/dev/vda"},
		},
	}
}

// singleNodeCluster is one control-plane host, no VIPs.
func singleNodeCluster() Cluster {
	c := multiNodeCluster()
	c.Name = "sno"
	c.APIVIPs, c.IngressVIPs = nil, nil
	c.ControlPlaneCount = 1
	c.Hosts = []Host{{ID: "h0", Hostname: "sno-0", Role: "master", MACs: []string{"52:54:00:00:00:20"}, Bootstrap: true,
		InstallationDisk: "/dev/disk/by-id/virtio-sno0"}}
	return c
}
