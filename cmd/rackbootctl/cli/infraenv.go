package cli

import (
	"context"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
)

// readStaticNetwork reads a static network config file: upstream's
// static_network_config list (entries with mac_interface_map and
// network_yaml), as YAML or JSON. Unknown keys are refused.
func (a *app) readStaticNetwork(path string) ([]client.HostStaticNetworkConfig, error) {
	text, err := a.readFile(path, "static network config")
	if err != nil {
		return nil, err
	}
	var out []client.HostStaticNetworkConfig
	dec := yaml.NewDecoder(strings.NewReader(text))
	dec.KnownFields(true)
	if err := dec.Decode(&out); err != nil {
		return nil, usageError("static network config %s: %v (want a list of {mac_interface_map, network_yaml})", path, err)
	}
	for i, c := range out {
		if strings.TrimSpace(c.NetworkYAML) == "" {
			return nil, usageError("static network config %s: entry %d has no network_yaml", path, i)
		}
	}
	return out, nil
}

// patchInfraEnv is "patch infra-env ID [flags]".
func (a *app) patchInfraEnv(ctx context.Context, args []string) error {
	var sshKey, pullSecret, override, static string
	var ntp listFlag
	var clearStatic bool
	fs := a.flagSet("patch infra-env")
	fs.StringVar(&sshKey, "ssh-key-file", "", "`file` with the new SSH public key")
	fs.StringVar(&pullSecret, "pull-secret-file", "", "`file` with the new pull secret (- for stdin)")
	fs.StringVar(&override, "ignition-override-file", "", "`file` with the new Ignition override")
	fs.StringVar(&static, "static-network-config", "", "`file` with the static network config list (YAML or JSON)")
	fs.BoolVar(&clearStatic, "clear-static-network", false, "remove the static network config")
	fs.Var(&ntp, "ntp-source", "additional NTP `source` (repeatable; replaces the list)")
	pos, err := a.parse(fs, args, "patch infra-env ID [flags]")
	if err != nil {
		return err
	}
	if err := exactArgs("patch infra-env", pos, 1, "one infra-env ID"); err != nil {
		return err
	}
	if static != "" && clearStatic {
		return usageError("patch infra-env: --static-network-config and --clear-static-network exclude each other")
	}
	var p client.InfraEnvUpdateParams
	set := func(dst **string, path, what string) error {
		if path == "" {
			return nil
		}
		v, err := a.readFile(path, what)
		*dst = &v
		return err
	}
	if err := set(&p.SSHAuthorizedKey, sshKey, "SSH key"); err != nil {
		return err
	}
	if err := set(&p.PullSecret, pullSecret, "pull secret"); err != nil {
		return err
	}
	if err := set(&p.IgnitionConfigOverride, override, "Ignition override"); err != nil {
		return err
	}
	if len(ntp) > 0 {
		v := strings.Join(ntp, ",")
		p.AdditionalNtpSources = &v
	}
	if clearStatic {
		p.StaticNetworkConfig = &[]client.HostStaticNetworkConfig{}
	}
	if static != "" {
		cfg, err := a.readStaticNetwork(static)
		if err != nil {
			return err
		}
		p.StaticNetworkConfig = &cfg
	}
	if p == (client.InfraEnvUpdateParams{}) {
		return usageError("patch infra-env: nothing to change")
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	id, err := a.infraEnvID(ctx, c, pos[0])
	if err != nil {
		return err
	}
	if _, err := c.UpdateInfraEnv(ctx, id, p); err != nil {
		return fmt.Errorf("patching infra-env %s: %w", pos[0], err)
	}
	return a.say("infra-env/%s patched\n", id)
}
