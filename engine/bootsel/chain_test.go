package bootsel_test

import (
	"context"
	"net"
	"testing"

	"github.com/rackboot/rackboot/boot"
	"github.com/rackboot/rackboot/engine/bootsel"
)

// catalog is a fallback that boots the MACs it lists as profile
// "catalog".
type catalog map[string]bool

func (c catalog) Choose(_ context.Context, mac net.HardwareAddr) (boot.Choice, error) {
	if !c[mac.String()] {
		return boot.Choice{}, boot.ErrNoBoot
	}
	return boot.Choice{Action: boot.ActionBoot, Profile: "catalog"}, nil
}

func (c catalog) Bootable(_ context.Context, mac net.HardwareAddr) bool { return c[mac.String()] }

// The chain asks the engine first: a registered host boots its infra-env
// even when a profile lists its MAC; a stranger that only the default
// infra-env would claim boots the profile listing it (the catalog), and
// the default infra-env when no profile lists it; a MAC the engine does
// not claim falls back to the catalog, or boots nothing.
func TestChainEngineThenCatalog(t *testing.T) {
	ctx := context.Background()
	other := "52:54:00:aa:00:98"
	fallback := catalog{hostMAC: true, stranger: true}
	listed := []net.HardwareAddr{mac(t, hostMAC), mac(t, stranger)}

	withDefault := newEnv(t, func(o *bootsel.Options) { o.DefaultInfraEnv = ieA })
	ch := bootsel.NewChain(withDefault.sel, fallback, listed)
	for _, tc := range []struct {
		mac, profile string
	}{
		{hostMAC, "discovery"}, // registered: the engine
		{stranger, "catalog"},  // only the default would claim it, and a profile lists it
		{other, "discovery"},   // the default infra-env
	} {
		got, err := ch.Choose(ctx, mac(t, tc.mac))
		if err != nil || got.Profile != tc.profile {
			t.Errorf("with a default infra-env, %s boots %q (%v), want %q", tc.mac, got.Profile, err, tc.profile)
		}
		if !ch.Bootable(ctx, mac(t, tc.mac)) {
			t.Errorf("with a default infra-env, %s is not bootable", tc.mac)
		}
	}
	ch.SetListed(nil) // a reload drops the profile's MAC list
	if got, err := ch.Choose(ctx, mac(t, stranger)); err != nil || got.Profile != "discovery" {
		t.Errorf("no longer listed: %s boots %q (%v), want the default infra-env", stranger, got.Profile, err)
	}

	noDefault := newEnv(t, nil)
	ch = bootsel.NewChain(noDefault.sel, fallback, listed)
	if got, err := ch.Choose(ctx, mac(t, stranger)); err != nil || got.Profile != "catalog" {
		t.Errorf("without a default, %s boots %q (%v), want the catalog", stranger, got.Profile, err)
	}
	if _, err := ch.Choose(ctx, mac(t, other)); err == nil {
		t.Errorf("without a default, %s boots something", other)
	}
	if ch.Bootable(ctx, mac(t, other)) {
		t.Errorf("without a default, %s is bootable", other)
	}
}
