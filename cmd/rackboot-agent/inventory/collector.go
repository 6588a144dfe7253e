package inventory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"strconv"
	"strings"

	"github.com/rackboot/rackboot/engine/models"
)

// ErrParse is wrapped by every error about malformed kernel file content.
var ErrParse = errors.New("inventory: malformed input")

// Collector reads the inventory of the host it runs on. The zero value
// reads the real machine.
type Collector struct {
	// FS is the host's file system rooted at "/"; nil means os.DirFS("/").
	FS fs.FS
	// Net lists network interfaces; nil means SystemNet{}.
	Net Net
	// Arch is the Go architecture (GOARCH) of the host; "" means runtime.GOARCH.
	Arch string
}

func (c *Collector) fsys() fs.FS {
	if c.FS == nil {
		return os.DirFS("/")
	}
	return c.FS
}

func (c *Collector) net() Net {
	if c.Net == nil {
		return SystemNet{}
	}
	return c.Net
}

// Collect reads every part of the inventory. It always returns an
// inventory (parts that could not be read are left empty, as upstream
// does) and an error joining what failed, each wrapped with its part name.
// Only a context that is done before or during collection stops it early.
func (c *Collector) Collect(ctx context.Context) (*models.Inventory, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	inv := &models.Inventory{
		// No IPMI here: upstream sends these when ipmitool finds no BMC.
		BmcAddress: "0.0.0.0", BmcV6address: "::/0",
		Disks: []*models.Disk{}, Gpus: []*models.Gpu{},
		Interfaces: []*models.Interface{}, Routes: []*models.Route{},
	}
	var errs partErrors
	c.collectHardware(inv, &errs)
	if err := ctx.Err(); err != nil {
		return inv, err
	}
	c.collectNetwork(inv, &errs)
	c.collectSystem(inv, &errs)
	return inv, errors.Join(errs...)
}

// partErrors collects part failures, each prefixed with its part name.
type partErrors []error

func (e *partErrors) note(part string, err error) {
	if err != nil {
		*e = append(*e, fmt.Errorf("%s: %w", part, err))
	}
}

func (c *Collector) collectHardware(inv *models.Inventory, errs *partErrors) {
	var err error
	inv.CPU, err = c.CPU()
	errs.note("cpu", err)
	inv.Memory, err = c.Memory()
	errs.note("memory", err)
	d, err := c.Disks() // a partial list comes with an error
	if d != nil {
		inv.Disks = d
	}
	errs.note("disks", err)
	if g, err := c.GPUs(); err == nil {
		inv.Gpus = g
	} else {
		errs.note("gpus", err)
	}
}

func (c *Collector) collectNetwork(inv *models.Inventory, errs *partErrors) {
	if n, err := c.Interfaces(); err == nil {
		inv.Interfaces = n
	} else {
		errs.note("interfaces", err)
	}
	if r, err := c.Routes(); err == nil {
		inv.Routes = r
	} else {
		errs.note("routes", err)
	}
}

func (c *Collector) collectSystem(inv *models.Inventory, errs *partErrors) {
	var err error
	inv.SystemVendor = c.SystemVendor()
	inv.Boot = c.Boot()
	inv.Hostname, err = c.Hostname()
	errs.note("hostname", err)
	inv.Hostname = ReplaceForbiddenHostname(inv.Hostname, inv.Interfaces)
	inv.TpmVersion, err = c.TPMVersion()
	errs.note("tpm", err)
}

// Collect reads the inventory of the machine this process runs on.
func Collect(ctx context.Context) (*models.Inventory, error) {
	var c Collector
	return c.Collect(ctx)
}

// LogErrors logs each part failure of a Collect error at warning level.
func LogErrors(log *slog.Logger, err error) {
	if err == nil {
		return
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			log.Warn("inventory part unreadable", "err", e)
		}
		return
	}
	log.Warn("inventory unreadable", "err", err)
}

// KernelArch maps a Go GOARCH to the machine name the kernel and lscpu
// report, which is what upstream puts in cpu.architecture.
func KernelArch(goarch string) string {
	switch goarch {
	case "amd64":
		return "x86_64"
	case "arm64":
		return "aarch64"
	case "386":
		return "i686"
	case "arm":
		return "armv7l"
	case "loong64":
		return "loongarch64"
	default: // ppc64le, s390x, riscv64, mips64 ... are spelt alike
		return goarch
	}
}

// readString reads a small kernel file and trims white space.
func readString(fsys fs.FS, name string) (string, error) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// readOptional is readString with errors turned into "".
func readOptional(fsys fs.FS, name string) string {
	s, _ := readString(fsys, name)
	return s
}

// readInt reads a kernel file holding one decimal integer.
func readInt(fsys fs.FS, name string) (int64, error) {
	s, err := readString(fsys, name)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %w", ErrParse, name, err)
	}
	return v, nil
}

// dirNames lists the names in a directory, nil when it cannot be read.
func dirNames(fsys fs.FS, name string) []string {
	ents, err := fs.ReadDir(fsys, name)
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}
