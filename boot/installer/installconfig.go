package installer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rackboot/rackboot/boot/redact"
)

// DefaultNetworkType is networking.networkType when the cluster names none.
const DefaultNetworkType = "OVNKubernetes"

// installConfig is the install-config.yaml upstream generates, the fields
// rackboot sets.
type installConfig struct {
	APIVersion       string            `json:"apiVersion"`
	BaseDomain       string            `json:"baseDomain"`
	Metadata         objectMeta        `json:"metadata"`
	Networking       networking        `json:"networking"`
	ControlPlane     machinePool       `json:"controlPlane"`
	Compute          []machinePool     `json:"compute"`
	Platform         platform          `json:"platform"`
	BootstrapInPlace *bootstrapInPlace `json:"bootstrapInPlace,omitempty"`
	PullSecret       string            `json:"pullSecret"`
	SSHKey           string            `json:"sshKey,omitempty"`
}

type objectMeta struct {
	Name string `json:"name"`
}

type networking struct {
	NetworkType    string           `json:"networkType"`
	ClusterNetwork []clusterNetwork `json:"clusterNetwork,omitempty"`
	MachineNetwork []machineNetwork `json:"machineNetwork,omitempty"`
	ServiceNetwork []string         `json:"serviceNetwork,omitempty"`
}

type clusterNetwork struct {
	CIDR       string `json:"cidr"`
	HostPrefix int    `json:"hostPrefix"`
}

type machineNetwork struct {
	CIDR string `json:"cidr"`
}

type machinePool struct {
	Name           string `json:"name"`
	Replicas       int    `json:"replicas"`
	Hyperthreading string `json:"hyperthreading"`
}

type platform struct {
	Baremetal *baremetal `json:"baremetal,omitempty"`
	None      *struct{}  `json:"none,omitempty"`
}

type baremetal struct {
	APIVIPs             []string `json:"apiVIPs"`
	IngressVIPs         []string `json:"ingressVIPs"`
	ProvisioningNetwork string   `json:"provisioningNetwork"`
}

type bootstrapInPlace struct {
	InstallationDisk string `json:"installationDisk"`
}

// InstallConfig returns the install-config.yaml of c as upstream generates
// it — apiVersion v1, baseDomain, metadata.name, networking, controlPlane
// (master, ControlPlaneCount replicas), compute (worker, one replica per
// worker host), platform baremetal with the VIPs (none for single node or
// without VIPs), bootstrapInPlace.installationDisk for single node when the
// host's disk is known, pullSecret, sshKey — with c.InstallConfigOverrides
// merged over it as a JSON merge patch (RFC 7386). Keys come out sorted.
// Errors wrap ErrInvalidInput or ErrInstallConfigOverride and never contain
// the pull secret.
func InstallConfig(c Cluster) ([]byte, error) {
	raw, err := installConfigYAML(c)
	if err != nil {
		return nil, redact.Error(err, []string{c.PullSecret})
	}
	return raw, nil
}

func installConfigYAML(c Cluster) ([]byte, error) {
	if c.Name == "" || c.BaseDomain == "" {
		return nil, fmt.Errorf("%w: cluster name and base domain are required", ErrInvalidInput)
	}
	base, err := json.Marshal(baseInstallConfig(c))
	if err != nil {
		return nil, fmt.Errorf("encoding install-config: %w", err)
	}
	doc, err := decodeJSON(base)
	if err != nil {
		return nil, fmt.Errorf("decoding install-config: %w", err)
	}
	if strings.TrimSpace(c.InstallConfigOverrides) != "" {
		patch, err := decodeJSON([]byte(c.InstallConfigOverrides))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInstallConfigOverride, err)
		}
		if _, ok := patch.(map[string]any); !ok {
			return nil, fmt.Errorf("%w: not a JSON object", ErrInstallConfigOverride)
		}
		doc = mergePatch(doc, patch)
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(yamlValue(doc)); err != nil {
		return nil, fmt.Errorf("encoding install-config YAML: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encoding install-config YAML: %w", err)
	}
	return buf.Bytes(), nil
}

// baseInstallConfig is the install-config of c before overrides.
func baseInstallConfig(c Cluster) installConfig {
	ic := installConfig{
		APIVersion: "v1",
		BaseDomain: c.BaseDomain,
		Metadata:   objectMeta{Name: c.Name},
		Networking: networking{NetworkType: c.NetworkType, ServiceNetwork: c.ServiceNetworks},
		PullSecret: c.PullSecret,
		SSHKey:     c.SSHPublicKey,
	}
	if ic.Networking.NetworkType == "" {
		ic.Networking.NetworkType = DefaultNetworkType
	}
	for _, n := range c.ClusterNetworks {
		ic.Networking.ClusterNetwork = append(ic.Networking.ClusterNetwork, clusterNetwork(n))
	}
	for _, n := range c.MachineNetworks {
		ic.Networking.MachineNetwork = append(ic.Networking.MachineNetwork, machineNetwork{CIDR: n})
	}
	masters, workers := 0, 0
	for _, h := range c.Hosts {
		switch h.Role {
		case "master":
			masters++
		case "worker":
			workers++
		}
	}
	if c.ControlPlaneCount > 0 {
		masters = c.ControlPlaneCount
	}
	ic.ControlPlane = machinePool{Name: "master", Replicas: masters, Hyperthreading: "Enabled"}
	ic.Compute = []machinePool{{Name: "worker", Replicas: workers, Hyperthreading: "Enabled"}}
	if c.SingleNode() || len(c.APIVIPs) == 0 {
		ic.Platform.None = &struct{}{}
	} else {
		ic.Platform.Baremetal = &baremetal{APIVIPs: c.APIVIPs, IngressVIPs: c.IngressVIPs, ProvisioningNetwork: "Disabled"}
	}
	if c.SingleNode() {
		for _, h := range c.Hosts {
			if h.Role == "master" && h.InstallationDisk != "" {
				ic.BootstrapInPlace = &bootstrapInPlace{InstallationDisk: h.InstallationDisk}
			}
		}
	}
	return ic
}

// decodeJSON decodes one JSON value, keeping numbers exact.
func decodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return v, nil
}

// mergePatch applies patch to target as RFC 7386 says: an object patch
// merges key by key (null deletes), anything else replaces.
func mergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	for k, v := range p {
		if v == nil {
			delete(t, k)
			continue
		}
		t[k] = mergePatch(t[k], v)
	}
	return t
}

// yamlValue turns JSON numbers into Go numbers so that YAML prints them
// unquoted.
func yamlValue(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		if f, err := t.Float64(); err == nil {
			return f
		}
		return t.String()
	case map[string]any:
		for k, x := range t {
			t[k] = yamlValue(x)
		}
		return t
	case []any:
		for i, x := range t {
			t[i] = yamlValue(x)
		}
		return t
	}
	return v
}
