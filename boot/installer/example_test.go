package installer_test

import (
	"context"
	"fmt"

	"github.com/rackboot/rackboot/boot/installer"
)

// The role configs come from a generator; each host's install Ignition is
// its role config plus its hostname, network, first-boot report and override.
func Example() {
	c := installer.Cluster{ID: "5f0c2a1e-8b0e", Name: "demo", BaseDomain: "rack.example", ControlPlaneCount: 3}
	a, err := installer.NewUserConfigs("testdata/roles").Generate(context.Background(), c)
	if err != nil {
		fmt.Println(err)
		return
	}
	host := installer.Host{ID: "h1", Hostname: "master-1", Role: "master"}
	role, err := a.RoleConfig(host)
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg, err := installer.HostIgnition(role, installer.HostParams{
		Hostname:  host.Hostname,
		FirstBoot: installer.FirstBoot{ProgressURL: "http://192.0.2.10:8090/api/assisted-install/v2/infra-envs/ie/hosts/h1/progress", Token: "host-token"},
	})
	fmt.Println(len(cfg) > 0, err)

	_, err = installer.HostIgnition(role, installer.HostParams{Hostname: "master 1"})
	fmt.Println(err)
	fmt.Println(installer.ValidateOverride(`{"ignition":{"version":"2.2.0"}}`))
	// Output:
	// true <nil>
	// invalid installer input: hostname: unsafe for an iPXE script: hostname "master 1": character ' ' is not a letter, digit or '-'
	// invalid ignition config override: invalid Ignition config: unsupported config version
}
