package main

import (
	"context"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cluster"
	"github.com/rackboot/rackboot/dhcp"
	"github.com/rackboot/rackboot/dhcp/leasefile"
	"github.com/rackboot/rackboot/engine"
)

// The leases of an old lease log move into the store once.
func TestImportLeaseLog(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	lf, err := leasefile.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	exp := time.Now().Add(time.Hour).Truncate(time.Second)
	old := []dhcp.Lease{
		{IP: netip.MustParseAddr("10.0.0.10"), MAC: net.HardwareAddr{0x52, 0x54, 0, 0, 0, 1}, Hostname: "h1", Expires: exp},
		{IP: netip.MustParseAddr("10.0.0.11"), Expires: exp}, // declined
	}
	for _, l := range old {
		if err := lf.Commit(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	lf.Close()

	st, err := cluster.Open(ctx, cluster.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := importLeaseLog(ctx, dir, st, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	leases := engine.NewLeases(st)
	got, ok := leases.ByMAC(old[0].MAC)
	if !ok || got.IP != old[0].IP || got.Hostname != "h1" || !got.Expires.Equal(exp) {
		t.Errorf("imported lease = %+v %v", got, ok)
	}
	if _, ok := leases.ByIP(old[1].IP); !ok {
		t.Error("declined address not imported")
	}
	if _, err := os.Stat(filepath.Join(dir, leasefile.Name+".imported")); err != nil {
		t.Errorf("old log not renamed: %v", err)
	}
	// Nothing left to import: a second call changes nothing.
	before := st.Stats().LastIndex
	if err := importLeaseLog(ctx, dir, st, slog.New(slog.DiscardHandler)); err != nil || st.Stats().LastIndex != before {
		t.Errorf("second import: %v, log %d → %d", err, before, st.Stats().LastIndex)
	}
}
