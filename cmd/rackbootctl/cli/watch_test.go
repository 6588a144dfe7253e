package cli_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/cmd/rackbootctl/cli"
)

// get hosts -w prints the header, then a row when a host registers and
// again when it is approved; cancelling ends it with exit 0.
func TestWatchHosts(t *testing.T) {
	r := newRig(t)
	ie := createdID(t, r.ok("create", "infra-env", "--name", "lab", "--pull-secret-file", "-"))

	w, ch := lines()
	var stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- cli.Run(ctx, []string{"get", "hosts", "-w", "--interval", "100ms"}, r.cliEnv(w, &stderr))
		w.Close()
	}()
	waitLine(t, ch, "the header", func(l string) bool { return strings.HasPrefix(l, "ID ") && strings.Contains(l, "APPROVED") })

	registerHost(t, r, ie, hostID)
	row := waitLine(t, ch, "the registered host", func(l string) bool { return strings.HasPrefix(l, hostID) })
	if !strings.Contains(row, "discovering-unbound") || !strings.Contains(row, " false ") {
		t.Errorf("row of a new host: %q", row)
	}
	r.ok("approve", "host", hostID)
	waitLine(t, ch, "the approved host", func(l string) bool { return strings.HasPrefix(l, hostID) && strings.Contains(l, " true ") })

	r.ok("delete", "host", hostID)
	waitLine(t, ch, "the deleted host", func(l string) bool { return strings.HasPrefix(l, hostID) && strings.Contains(l, " deleted ") })

	cancel()
	if code := <-done; code != 0 {
		t.Errorf("watch exited %d: %s", code, stderr.String())
	}
	for l := range ch {
		t.Errorf("unexpected line after cancel: %q", l)
	}
}
