package infraenvs

import (
	"context"
	"errors"
	"fmt"

	"github.com/rackboot/rackboot/boot/nmstate"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// staticNetLabel labels the NMState configs the API creates from an
// infra-env's static_network_config; the infra-env selects them by it.
const staticNetLabel = "rackboot.io/infra-env"

// StaticNetwork returns the static network configs infra-env ie selects,
// in name order.
func StaticNetwork(m *engine.Model, ie engine.InfraEnv) []nmstate.HostStaticNetworkConfig {
	var out []nmstate.HostStaticNetworkConfig
	for c := range m.NMStateConfigs() {
		if !engine.Selects(ie.StaticNetworkSelector, c.Labels) {
			continue
		}
		out = append(out, StaticNetworkConfig(c))
	}
	return out
}

// StaticNetworkConfig is NMState config c as one static_network_config
// entry.
func StaticNetworkConfig(c engine.NMStateConfig) nmstate.HostStaticNetworkConfig {
	h := nmstate.HostStaticNetworkConfig{NetworkYAML: c.Config, MACInterfaceMap: []nmstate.MACInterface{}}
	for _, i := range c.Interfaces {
		h.MACInterfaceMap = append(h.MACInterfaceMap, nmstate.MACInterface{MACAddress: i.MAC, LogicalNICName: i.Name})
	}
	return h
}

// NMStateHosts is a request's static_network_config in nmstate's form
// (nil stays nil, an empty list stays empty).
func NMStateHosts(in []models.HostStaticNetworkConfig) []nmstate.HostStaticNetworkConfig {
	if in == nil {
		return nil
	}
	out := make([]nmstate.HostStaticNetworkConfig, len(in))
	for i, h := range in {
		out[i].NetworkYAML = h.NetworkYAML
		if h.MACInterfaceMap != nil {
			out[i].MACInterfaceMap = make([]nmstate.MACInterface, len(h.MACInterfaceMap))
		}
		for j, m := range h.MACInterfaceMap {
			out[i].MACInterfaceMap[j] = nmstate.MACInterface{MACAddress: m.MACAddress, LogicalNICName: m.LogicalNICName}
		}
	}
	return out
}

// staticConfigName names the i-th static network config of infra-env id.
func staticConfigName(id string, i int) string { return fmt.Sprintf("%s-host%d", id, i) }

// ReplaceStaticNetwork deletes the NMState configs the API made for
// infra-env id and stores configs in their place.
func (s *Service) ReplaceStaticNetwork(ctx context.Context, id string, configs []nmstate.HostStaticNetworkConfig) error {
	if err := s.DeleteStaticNetwork(ctx, id); err != nil {
		return err
	}
	for i, h := range configs {
		c := engine.NMStateConfig{Name: staticConfigName(id, i), Labels: map[string]string{staticNetLabel: id},
			Config: h.NetworkYAML, Interfaces: []engine.MACInterface{}}
		for _, mi := range h.MACInterfaceMap {
			c.Interfaces = append(c.Interfaces, engine.MACInterface{MAC: mi.MACAddress, Name: mi.LogicalNICName})
		}
		if _, err := s.store.Apply(ctx, &engine.CreateNMStateConfig{Config: c}); err != nil {
			return fmt.Errorf("store static network config %d: %w", i, err)
		}
	}
	return nil
}

// DeleteStaticNetwork deletes the NMState configs the API made for
// infra-env id.
func (s *Service) DeleteStaticNetwork(ctx context.Context, id string) error {
	var names []string
	s.store.Read(func(m *engine.Model) {
		for c := range m.NMStateConfigs() {
			if c.Labels[staticNetLabel] == id && c.Labels[engine.LabelNetworkDataBMH] == "" { // a BMH's stays
				names = append(names, c.Name)
			}
		}
	})
	for _, n := range names {
		if _, err := s.store.Apply(ctx, &engine.DeleteNMStateConfig{Name: n}); err != nil && !errors.Is(err, engine.ErrNotFound) {
			return fmt.Errorf("delete static network config %s: %w", n, err)
		}
	}
	return nil
}

// StaticSelector is the selector of the configs the API made for id.
func StaticSelector(id string) map[string]string { return map[string]string{staticNetLabel: id} }
