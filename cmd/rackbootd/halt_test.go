package main

import (
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/cluster/logtest"
)

// A raft log entry rackbootd cannot decode stops it with exit status 78
// (which the unit does not restart) and a message naming the entry and the
// way out, instead of a panic on every start; `rackbootd truncate-log`
// removes it and the daemon starts again with its state.
func TestUndecodableLogEntryStopsWithWayOut(t *testing.T) {
	d := startDaemon(t)
	d.waitNote("READY=1")
	id := d.createInfraEnv("kept")
	d.stop()

	bad := logtest.AppendCommand(t, filepath.Join(d.dir, "state"), []byte{250, 1, '{', '}'})
	_, stderr, code := runBinary(t, d.dir, "--config", "rackboot.toml")
	if code != exitHalted {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitHalted, stderr)
	}
	for _, want := range []string{"entry " + strconv.FormatUint(bad, 10), "unknown command type 250", "rackbootd truncate-log --config FILE --from INDEX"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "panic") {
		t.Errorf("rackbootd panicked:\n%s", stderr)
	}

	from := strconv.FormatUint(bad, 10)
	if _, stderr, code := runBinary(t, d.dir, "truncate-log", "--config", "rackboot.toml", "--from", "0"); code != 2 {
		t.Errorf("truncate-log --from 0: exit %d, %s", code, stderr)
	}
	out, stderr, code := runBinary(t, d.dir, "truncate-log", "--config", "rackboot.toml", "--from", from)
	if code != 0 || !strings.HasPrefix(out, "removed raft log entries "+from+" to ") {
		t.Fatalf("truncate-log: exit %d, stdout %q, stderr %q", code, out, stderr)
	}

	d.start(nil)
	d.waitNote("READY=1")
	if code, body := d.call("GET", "/infra-envs/"+id, "Authorization: Bearer "+d.adminToken(), ""); code != http.StatusOK || !strings.Contains(body, `"kept"`) {
		t.Errorf("the infra-env written before the bad entry: %d %s", code, body)
	}
	d.createInfraEnv("after")
}
