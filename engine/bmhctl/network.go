package bmhctl

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rackboot/rackboot/boot/nmstate"
	"github.com/rackboot/rackboot/engine"
)

// networkConfigName is the NMState config made for BMH name.
func networkConfigName(name string) string { return "bmh-" + name + "-network" }

// ensureNetwork makes the discovery image of v's BMH carry its
// preprovisioning network data: an NMState config with the secret's
// nmstate YAML, the boot MAC mapped to its interface, and the labels the
// infra-env selects. It returns false (the failure recorded) when it could
// not.
func (c *Controller) ensureNetwork(ctx context.Context, v view) bool {
	b := v.bmh
	if b.PreprovisioningNetworkDataName == "" {
		return true
	}
	want, err := c.networkConfig(v)
	if err != nil {
		c.fail(ctx, b, "preprovisioning network data", err)
		return false
	}
	var cur engine.NMStateConfig
	var ok bool
	c.o.Store.Read(func(m *engine.Model) { cur, ok = m.NMStateConfig(want.Name) })
	if ok && reflect.DeepEqual(cur.Labels, want.Labels) && cur.Config == want.Config &&
		reflect.DeepEqual(cur.Interfaces, want.Interfaces) {
		return true
	}
	if ok {
		if _, err := c.o.Store.Apply(ctx, &engine.DeleteNMStateConfig{Name: want.Name}); err != nil && !errors.Is(err, engine.ErrNotFound) {
			c.o.Log.WarnContext(ctx, "replace preprovisioning network", "bmh", b.Name, "err", err)
			return false
		}
	}
	if _, err := c.o.Store.Apply(ctx, &engine.CreateNMStateConfig{Config: want}); err != nil {
		c.o.Log.WarnContext(ctx, "store preprovisioning network", "bmh", b.Name, "err", err)
		return false
	}
	c.event(ctx, b, b.Status.HostID, v.ie.ID, "bmh_network_data", "info",
		fmt.Sprintf("BareMetalHost %s: static network of the discovery image from secret %s (interface %s, MAC %s)",
			b.Name, b.PreprovisioningNetworkDataName, want.Interfaces[0].Name, want.Interfaces[0].MAC))
	return true
}

// networkConfig is the NMState config v's BMH asks for.
func (c *Controller) networkConfig(v view) (engine.NMStateConfig, error) {
	b := v.bmh
	var (
		sec    engine.Secret
		ok     bool
		doc    []byte
		opnErr error
	)
	c.o.Store.Read(func(m *engine.Model) {
		if sec, ok = m.Secret(b.PreprovisioningNetworkDataName); ok {
			doc, _, opnErr = m.SecretValue(sec.Name, engine.NetworkDataKey) // sealed at rest
		}
	})
	switch {
	case opnErr != nil:
		return engine.NMStateConfig{}, fmt.Errorf("%w: preprovisioningNetworkDataName: secret %q: %w", ErrConfig, b.PreprovisioningNetworkDataName, opnErr)
	case !ok:
		return engine.NMStateConfig{}, fmt.Errorf("%w: preprovisioningNetworkDataName: secret %q not found", ErrConfig, b.PreprovisioningNetworkDataName)
	case len(doc) == 0:
		return engine.NMStateConfig{}, fmt.Errorf("%w: preprovisioningNetworkDataName: secret %q has no %q key", ErrConfig, sec.Name, engine.NetworkDataKey)
	case b.BootMACAddress == "":
		return engine.NMStateConfig{}, fmt.Errorf("%w: preprovisioningNetworkDataName needs bootMACAddress", ErrConfig)
	case len(v.ie.StaticNetworkSelector) == 0:
		return engine.NMStateConfig{}, fmt.Errorf("%w: preprovisioningNetworkDataName: infra-env %s selects no NMState configs (no static network selector), so its discovery image could not carry them", ErrConfig, v.ie.ID)
	}
	mac := strings.ToLower(b.BootMACAddress)
	iface, err := bootInterface(doc, mac)
	if err != nil {
		return engine.NMStateConfig{}, fmt.Errorf("%w: preprovisioningNetworkDataName: secret %q: %w", ErrConfig, sec.Name, err)
	}
	if _, err := nmstate.Convert(doc, []nmstate.NIC{{Name: iface, MAC: mac}}); err != nil {
		return engine.NMStateConfig{}, fmt.Errorf("%w: preprovisioningNetworkDataName: secret %q: %w", ErrConfig, sec.Name, err)
	}
	labels := maps.Clone(v.ie.StaticNetworkSelector)
	labels[engine.LabelNetworkDataBMH] = b.Name
	return engine.NMStateConfig{Name: networkConfigName(b.Name), Labels: labels, Config: string(doc),
		Interfaces: []engine.MACInterface{{MAC: mac, Name: iface}}}, nil
}

// bootInterface is the interface of the NMState document that the boot MAC
// is: the one whose mac-address it is, else the first ethernet one.
func bootInterface(doc []byte, mac string) (string, error) {
	var st struct {
		Interfaces []struct {
			Name string `yaml:"name"`
			Type string `yaml:"type"`
			MAC  string `yaml:"mac-address"`
		} `yaml:"interfaces"`
	}
	if err := yaml.Unmarshal(doc, &st); err != nil {
		return "", fmt.Errorf("not NMState YAML")
	}
	first := ""
	for _, i := range st.Interfaces {
		if i.Name != "" && strings.EqualFold(i.MAC, mac) {
			return i.Name, nil
		}
		if first == "" && i.Type == "ethernet" {
			first = i.Name
		}
	}
	if first == "" {
		return "", fmt.Errorf("no ethernet interface for the boot MAC")
	}
	return first, nil
}
