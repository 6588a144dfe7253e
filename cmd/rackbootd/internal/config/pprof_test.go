package config

import (
	"errors"
	"strings"
	"testing"
)

// server.pprof_listen serves Go's profiles on loopback only: any other
// address is refused with the key named; unset, it is off.
func TestPprofListen(t *testing.T) {
	doc := func(line string) []byte {
		return []byte("[server]\nadvertise = \"127.0.0.1\"\n" + line + "\n[tftp]\nenabled = false\n")
	}
	cfg, err := Parse("min.toml", doc(""), "/")
	if err != nil || cfg.Server.PprofListen != "" {
		t.Fatalf("unset: %q %v", cfg.Server.PprofListen, err)
	}
	for _, ok := range []string{"127.0.0.1:6060", "[::1]:6060"} {
		cfg, err := Parse("p.toml", doc("pprof_listen = \""+ok+"\""), "/")
		if err != nil || cfg.Server.PprofListen != ok {
			t.Errorf("%s: %q %v", ok, cfg.Server.PprofListen, err)
		}
	}
	for _, bad := range []string{"0.0.0.0:6060", ":6060", "10.0.0.1:6060", "localhost:6060"} {
		_, err := Parse("p.toml", doc("pprof_listen = \""+bad+"\""), "/")
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "server.pprof_listen") {
			t.Errorf("%s: err = %v", bad, err)
		}
	}
}
