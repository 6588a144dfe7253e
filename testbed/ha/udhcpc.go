package ha

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/rackboot/rackboot/testbed/netns"
)

// udhcpcScript appends each event's variables to a file, one line per
// event, and configures the interface on bound/renew so that unicast
// renewals (from the leased address to the server identifier) work.
const udhcpcScript = `#!/bin/sh
echo "event=$1 ip=$ip serverid=$serverid lease=$lease" >> %s
case "$1" in
bound|renew) busybox ifconfig "$interface" "$ip" netmask "$subnet" ;;
deconfig) busybox ifconfig "$interface" 0.0.0.0 ;;
esac
exit 0
`

// Event is one udhcpc script call.
type Event struct {
	Name     string // bound, renew, deconfig, leasefail, nak
	IP       string
	ServerID string
	Lease    string
}

// DHCPClient is busybox udhcpc running in its own namespace on the bridge.
type DHCPClient struct {
	NS     *netns.NS
	MAC    string
	events string
	cmd    *exec.Cmd
	done   chan struct{}
}

// StartDHCPClient starts udhcpc for mac in a new namespace on the bridge.
// It keeps running (and renewing) until Close.
func (r *Rack) StartDHCPClient(ctx context.Context, dir, mac string) (*DHCPClient, error) {
	ns, err := r.AddClient(ctx, "hadhc", "", mac)
	if err != nil {
		return nil, err
	}
	c := &DHCPClient{NS: ns, MAC: mac, events: filepath.Join(dir, "udhcpc-"+strings.ReplaceAll(mac, ":", "")+".events"), done: make(chan struct{})}
	script := c.events + ".sh"
	if err := os.WriteFile(script, []byte(fmt.Sprintf(udhcpcScript, c.events)), 0o755); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRack, err)
	}
	// -t 1000 -T 1 -A 1: keep discovering once a second while no server
	// answers.
	c.cmd = exec.Command("ip", "netns", "exec", ns.Name, "busybox", "udhcpc", "-f", "-i", "eth0", "-s", script,
		"-t", "1000", "-T", "1", "-A", "1")
	log, err := os.Create(c.events + ".log")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRack, err)
	}
	c.cmd.Stdout, c.cmd.Stderr = log, log
	if err := c.cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("%w: udhcpc: %w", ErrRack, err)
	}
	go func() {
		c.cmd.Wait()
		log.Close()
		close(c.done)
	}()
	return c, nil
}

// Events are the events so far, oldest first.
func (c *DHCPClient) Events() []Event {
	b, _ := os.ReadFile(c.events)
	var out []Event
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		var e Event
		for _, f := range strings.Fields(line) {
			k, v, _ := strings.Cut(f, "=")
			switch k {
			case "event":
				e.Name = v
			case "ip":
				e.IP = v
			case "serverid":
				e.ServerID = v
			case "lease":
				e.Lease = v
			}
		}
		out = append(out, e)
	}
	return out
}

// WaitEvent waits for an event named one of names after the first skip
// events and returns it with its position.
func (c *DHCPClient) WaitEvent(ctx context.Context, skip int, names ...string) (Event, int, error) {
	var got Event
	pos := -1
	err := poll(ctx, 50*time.Millisecond, func() (bool, error) {
		evs := c.Events()
		for i := skip; i < len(evs); i++ {
			for _, n := range names {
				if evs[i].Name == n {
					got, pos = evs[i], i
					return true, nil
				}
			}
		}
		select {
		case <-c.done:
			return false, fmt.Errorf("%w: udhcpc exited", ErrRack)
		default:
		}
		return false, nil
	})
	if err != nil {
		return Event{}, -1, fmt.Errorf("%w: waiting for udhcpc %v (events %v): %w", ErrRack, names, c.Events(), err)
	}
	return got, pos, nil
}

// Renew makes udhcpc renew its lease now (SIGUSR1): a unicast REQUEST to
// the server identifier.
func (c *DHCPClient) Renew() error {
	return c.cmd.Process.Signal(syscall.SIGUSR1)
}

// Close stops udhcpc.
func (c *DHCPClient) Close() {
	c.cmd.Process.Kill()
	<-c.done
}
