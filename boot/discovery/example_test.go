package discovery_test

import (
	"encoding/json"
	"fmt"

	"github.com/rackboot/rackboot/boot/discovery"
)

func ExampleBuild() {
	raw, err := discovery.Build(discovery.Input{
		ServiceURL:       "http://192.168.100.1:8090",
		InfraEnvID:       "0b6f1f6e-0f6c-4d38-9d5f-7a1c3c1b2e4d",
		AgentToken:       "eyJhbGciOiJFUzI1NiJ9.e30.c2ln",
		NTPSources:       []string{"192.168.100.1"},
		IgnitionOverride: `{"ignition":{"version":"3.1.0"},"storage":{"files":[{"path":"/etc/motd","contents":{"source":"data:,hi"}}]}}`,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	var cfg struct {
		Storage struct{ Files []struct{ Path string } }
		Systemd struct{ Units []struct{ Name string } }
	}
	_ = json.Unmarshal(raw, &cfg)
	for _, f := range cfg.Storage.Files {
		fmt.Println("file", f.Path)
	}
	for _, u := range cfg.Systemd.Units {
		fmt.Println("unit", u.Name)
	}

	_, err = discovery.Build(discovery.Input{
		ServiceURL: "http://192.168.100.1:8090", InfraEnvID: "0b6f1f6e-0f6c-4d38-9d5f-7a1c3c1b2e4d",
		AgentToken: "t0ken", IgnitionOverride: `{"ignition":{"version":"3.5.0"},"storage":{"files":[{"path":"motd"}]}}`,
	})
	fmt.Println(err)
	// Output:
	// file /etc/chrony.d/rackboot.conf
	// file /etc/rackboot/agent.conf
	// file /etc/motd
	// unit rackboot-agent.service
	// invalid ignition_config_override: invalid Ignition config: config is not valid: error at $.storage.files.0.path, line 1 col 61: path not absolute
}
