package steps

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/rackboot/rackboot/cmd/rackboot-agent/protocol"
	"github.com/rackboot/rackboot/engine/models"
)

// Sentinel errors of the install step.
var (
	// ErrInstall: the install step failed; the reason follows.
	ErrInstall = errors.New("steps: install failed")
	// ErrIgnition: the host's install Ignition is missing or invalid.
	ErrIgnition = errors.New("steps: install ignition invalid")
	// ErrImage: the disk image could not be fetched or does not match.
	ErrImage = errors.New("steps: disk image")
	// ErrDevice: the boot device cannot take the image.
	ErrDevice = errors.New("steps: boot device")
	// ErrNoPartition: the written image has no usable boot file system
	// (a CoreOS metal image's partition named boot, ext4).
	ErrNoPartition = errors.New("steps: boot partition")
)

// InstallTimeout bounds the install step (download, write, report).
const InstallTimeout = time.Hour

// InstallService is the service side of the install step
// (*protocol.Client).
type InstallService interface {
	HostIgnition(ctx context.Context, ignitionURL string) (*models.HostIgnitionParams, error)
	PutProgress(ctx context.Context, hostID string, p models.HostProgress) error
}

// InstallResult is the install step's output.
type InstallResult struct {
	BootDevice    string `json:"boot_device"`
	ImageBytes    int64  `json:"image_bytes"`
	ImageSHA256   string `json:"image_sha256"`
	IgnitionBytes int    `json:"ignition_bytes"`
	// Installer is "coreos-installer" when it wrote the disk ("": the
	// agent wrote the image itself).
	Installer string `json:"installer,omitempty"`
	// Offline: coreos-installer installed the live media's image
	// (--offline), image_url was not fetched.
	Offline bool `json:"offline,omitempty"`
	// Reboot: the agent must reboot the host once the reply is sent (false
	// with external_reboot: a BMH controller resets it).
	Reboot bool `json:"reboot"`
}

// parseInstallArgs decodes and checks the install step's argument. Unknown
// fields (upstream's installer_args and more) are accepted and ignored.
func parseInstallArgs(args []string) (*models.InstallStepArgs, error) {
	var a models.InstallStepArgs
	if err := oneJSONArg("install", args, &a); err != nil {
		return nil, err
	}
	bad := func(format string, v ...any) error {
		return fmt.Errorf("%w: install: "+format, append([]any{ErrArgs}, v...)...)
	}
	switch {
	case !protocol.ValidID(a.HostID):
		return nil, bad("host_id %q is not 8-4-4-4-12 hex", a.HostID)
	case !filepath.IsAbs(a.BootDevice) || filepath.Clean(a.BootDevice) != a.BootDevice:
		return nil, bad("boot_device %q is not a clean absolute path", a.BootDevice)
	case len(a.ImageSHA256) != 64 || !isHex(a.ImageSHA256):
		return nil, bad("image_sha256 is not 64 hex digits")
	case a.ImageSize < 0:
		return nil, bad("image_size %d is negative", a.ImageSize)
	case a.IgnitionURL == "":
		return nil, bad("ignition_url is empty")
	}
	for _, w := range a.WipeDisks {
		if !filepath.IsAbs(w) || filepath.Clean(w) != w || w == a.BootDevice {
			return nil, bad("wipe_disks entry %q is not a clean absolute path other than the boot device", w)
		}
	}
	u, err := url.Parse(a.ImageURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return nil, bad("image_url is not an http(s) URL without credentials")
	}
	a.ImageSHA256 = strings.ToLower(a.ImageSHA256)
	return &a, nil
}

func isHex(s string) bool {
	_, err := hex.DecodeString(s)
	return err == nil
}

// safeURL is u without its query (which may hold a token), for errors.
func safeURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Scheme + "://" + u.Host + u.EscapedPath()
}

func (d Deps) install(ctx context.Context, args []string) (string, error) {
	if d.Install == nil {
		return "", fmt.Errorf("%w: this agent has no service connection for the install step", ErrUnsupported)
	}
	a, err := parseInstallArgs(args)
	if err != nil {
		return "", err
	}
	in := &installer{deps: d, args: a, log: d.log().With("host", a.HostID, "step_type", "install")}
	defer in.close()
	res, err := in.run(ctx)
	if err != nil {
		in.abort(ctx, err)
		return "", err
	}
	return marshal(res)
}

func (d Deps) imageHTTP() *http.Client {
	if d.ImageHTTP != nil {
		return d.ImageHTTP
	}
	return DefaultImageClient()
}

// DefaultImageClient streams disk images: no overall timeout (a large
// image takes minutes), but bounded dialling and waiting for headers; a
// stalled body is caught by the stall timer.
func DefaultImageClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = 30 * time.Second
	return &http.Client{Transport: t}
}
