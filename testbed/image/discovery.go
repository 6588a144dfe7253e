package image

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// ErrBinary is returned when a binary of the discovery image cannot be built
// or read.
var ErrBinary = errors.New("image: discovery binary")

// discoveryFormat changes whenever the layout of the discovery image changes
// in a way its inputs do not capture.
const discoveryFormat = "rackboot-testbed-discovery-1"

// efivarfs is loaded (and mounted) by the discovery init under UEFI only.
const efivarfs = "efivarfs"

// discoveryModules are the modules the discovery image carries.
func discoveryModules() []string { return append(Modules(), efivarfs) }

// Where the discovery image puts its binaries. AgentPath is the path the
// discovery Ignition's rackboot-agent.service runs.
const (
	AgentPath    = "usr/local/bin/rackboot-agent"
	IgnitionPath = "usr/bin/ignition"
)

// DiscoveryBinaries are the static programs the discovery image runs.
type DiscoveryBinaries struct {
	Agent    string // rackboot-agent, built with CGO_ENABLED=0 (BuildAgent)
	Ignition string // Ignition v2.24.0, static (BuildIgnition)
}

// BuildDiscovery makes the discovery image under cacheDir: the kernel of
// Build, and an initrd with busybox, the virtio and efivarfs modules,
// Ignition, rackboot-agent and an /init that applies /config.ign and runs the
// agent (files/discovery-init). Images are cached by content, like Build's.
func BuildDiscovery(ctx context.Context, cacheDir string, bins DiscoveryBinaries) (Artifacts, error) {
	name := func(debName string) (string, error) {
		key, err := discoveryKey(debName, bins)
		return "discovery-" + key, err
	}
	write := func(w io.Writer, found map[string]string) error {
		return WriteDiscoveryInitrd(w, DiscoveryInputs{
			InitrdInputs: InitrdInputs{Busybox: DefaultBusybox, Modules: found, Order: Modules()},
			Extra:        []string{efivarfs},
			Binaries:     bins,
		})
	}
	return cachedBuild(ctx, cacheDir, name, discoveryModules(), write)
}

// discoveryKey names a discovery image by everything that goes into it.
func discoveryKey(debName string, bins DiscoveryBinaries) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n", discoveryFormat, debName, strings.Join(discoveryModules(), " "))
	io.WriteString(h, discoveryInit(Modules()))
	io.WriteString(h, udhcpcScript)
	for _, s := range discoveryStatic() {
		io.WriteString(h, s.name+"\n"+s.body)
	}
	for _, f := range []string{DefaultBusybox, bins.Agent, bins.Ignition} {
		if err := hashFile(h, f); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:20], nil
}

func hashFile(w io.Writer, name string) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBinary, err)
	}
	defer f.Close()
	if _, err := io.Copy(w, f); err != nil {
		return fmt.Errorf("%w: %w", ErrBinary, err)
	}
	return nil
}
