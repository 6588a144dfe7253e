package bootsel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/rackboot/rackboot/boot/discovery"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/bootsel"
)

// stormMAC is the i-th MAC of a boot storm.
func stormMAC(i int) net.HardwareAddr {
	return net.HardwareAddr{0x52, 0x54, 0x01, 0, byte(i >> 8), byte(i)}
}

// A boot storm: 200 reserved hosts (each with its own hostname) and 200
// strangers (default infra-env) ask at once, three times each (script,
// kernel, initrd). Every reserved host gets its own hostname, every config
// carries the same infra-env token (signed once, not per host), and the
// strangers share one built config.
func TestBootStorm(t *testing.T) {
	const n = 200
	e := newEnv(t, func(o *bootsel.Options) { o.DefaultInfraEnv = ieA })
	if err := e.reload(t, func(st *bootsel.Settings) {
		for i := range n {
			st.Reservations = append(st.Reservations, bootsel.Reservation{MAC: stormMAC(i), InfraEnv: ieA, Hostname: fmt.Sprintf("node-%d", i)})
		}
	}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	type result struct {
		i      int
		ign    []byte
		reserv bool
		err    error
	}
	out := make(chan result, 6*n)
	var wg sync.WaitGroup
	for i := range n {
		for range 3 {
			wg.Add(2)
			go func() {
				defer wg.Done()
				ch, err := e.sel.Choose(ctx, stormMAC(i))
				out <- result{i, ch.Ignition, true, err}
			}()
			go func() {
				defer wg.Done()
				ch, err := e.sel.Choose(ctx, net.HardwareAddr{0x52, 0x54, 0x02, 0, byte(i >> 8), byte(i)})
				out <- result{i, ch.Ignition, false, err}
			}()
		}
	}
	wg.Wait()
	close(out)
	tokens := map[string]bool{}
	var shared *byte
	for r := range out {
		if r.err != nil {
			t.Fatal(r.err)
		}
		files := ignFiles(t, r.ign)
		var ac discovery.AgentConfig
		if err := json.Unmarshal([]byte(files[discovery.AgentConfigPath]), &ac); err != nil {
			t.Fatal(err)
		}
		tokens[ac.Token] = true
		if r.reserv {
			if got := strings.TrimSpace(files["/etc/hostname"]); got != fmt.Sprintf("node-%d", r.i) {
				t.Fatalf("host %d got hostname %q", r.i, got)
			}
			continue
		}
		if shared == nil {
			shared = &r.ign[0]
		} else if shared != &r.ign[0] {
			t.Fatal("strangers of one infra-env did not share one built config")
		}
	}
	if len(tokens) != 1 {
		t.Fatalf("%d different agent tokens for one infra-env in a storm, want 1", len(tokens))
	}
}

func BenchmarkChooseCached(b *testing.B) {
	e := newEnv(b, func(o *bootsel.Options) { o.DefaultInfraEnv = ieA })
	ctx := context.Background()
	m := net.HardwareAddr{0x52, 0x54, 0x02, 0, 0, 1}
	if _, err := e.sel.Choose(ctx, m); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.sel.Choose(ctx, m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBootable10kHosts is the DHCP server's question for a stranger
// with 10,000 registered hosts, while Run keeps the MAC index.
func BenchmarkBootable10kHosts(b *testing.B) {
	e := newEnv(b, nil)
	for i := range 10_000 {
		e.apply(b, &engine.RegisterHost{Host: engine.Host{ID: fmt.Sprintf("dddddddd-0000-4000-8000-%012d", i), InfraEnvID: ieA,
			Status: "known", Inventory: inventory(stormMAC(i).String())}})
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.sel.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	last := stormMAC(9_999)
	for !e.sel.Bootable(ctx, last) { // the index has caught up
		runtime.Gosched()
	}
	m := mac(b, stranger)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if e.sel.Bootable(ctx, m) {
			b.Fatal("a stranger is bootable")
		}
	}
}
