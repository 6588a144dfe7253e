package config

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/rackboot/rackboot/engine/validation"
)

// ImageSet is an image set the file declares ([[image_set]]): rackbootd
// keeps it in the engine's store, so hosts booting it are validated against
// its thresholds.
type ImageSet struct {
	Name    string
	Version string // "" when unset
	CPUArch string // x86_64 when unset
	Profile string // a Profiles name: the kernel and initrd its hosts boot
	// Thresholds are the file's overrides of upstream's minimums, applied
	// to them by the engine (Profile set whenever a minimum is); nil when
	// the image set has none and its hosts get [engine] thresholds.
	Thresholds *validation.Thresholds
	// BaseISO is the discovery ISO served, customised per infra-env, to
	// BMCs as virtual media ("" when unset); resolved like profile paths.
	BaseISO string
	// Install is what installing hosts of this image set get (disk image,
	// role Ignition generator); its zero value installs nothing.
	Install ImageSetInstall
	// Live holds the CoreOS live artifacts the image set boots (nil:
	// it boots Profile).
	Live *Live
}

type fileImageSet struct {
	Name       string         `toml:"name"`
	Version    string         `toml:"version"`
	CPUArch    string         `toml:"cpu_arch"`
	Profile    string         `toml:"profile"`
	Thresholds fileThresholds `toml:"thresholds"`
	BaseISO    string         `toml:"base_iso"`
	// The install keys (check_install.go).
	DiskImage        string `toml:"disk_image"`
	DiskImageSHA256  string `toml:"disk_image_sha256"`
	Generator        string `toml:"generator"`
	RoleIgnitionDir  string `toml:"role_ignition_dir"`
	OpenShiftInstall string `toml:"openshift_install"`
	ReleaseImage     string `toml:"release_image"`
	KernelSHA256     string `toml:"kernel_sha256"`
	InitrdSHA256     string `toml:"initrd_sha256"`
	RootfsSHA256     string `toml:"rootfs_sha256"`
	ISOSHA256        string `toml:"iso_sha256"`
	// The CoreOS keys (check_live.go).
	LiveISO         string `toml:"live_iso"`
	LiveRootfs      string `toml:"live_rootfs"`
	CoreOSStream    string `toml:"coreos_stream"`
	CoreOSMirror    string `toml:"coreos_mirror"`
	KernelArguments string `toml:"kernel_arguments"`
}

var (
	imageSetVersion = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]{0,62}$`)
	cpuArchs        = []string{"x86_64", "amd64", "arm64", "aarch64", "ppc64le", "s390x"}
)

// imageSets checks [[image_set]]: unique names, a known architecture, a
// profile that [[profile]] declares, and thresholds as [engine.thresholds]
// (a lowered minimum names its profile). It runs after profiles.
func (c *checker) imageSets(fs []fileImageSet) {
	names := map[string]Pos{}
	for i, f := range fs {
		base := fmt.Sprintf("image_set[%d]", i)
		if is, ok := c.imageSet(base, f, names); ok {
			c.cfg.ImageSets = append(c.cfg.ImageSets, is)
		}
	}
}

func (c *checker) imageSet(base string, f fileImageSet, names map[string]Pos) (ImageSet, bool) {
	is := ImageSet{Name: f.Name, Version: f.Version, CPUArch: c.str(base+".cpu_arch", f.CPUArch, "x86_64"), Profile: f.Profile}
	ok := true
	switch {
	case f.Name == "":
		c.missing(base+".name", "give the image set a name")
		ok = false
	case !profileName.MatchString(f.Name):
		c.errAt(base+".name", "image_set.name %q must be 1-63 letters, digits, '.', '_' or '-'", f.Name)
		ok = false
	default:
		ok = c.once(base+".name", f.Name, names, "image_set.name %q is given twice (also at %s)")
	}
	if f.Version != "" && !imageSetVersion.MatchString(f.Version) {
		c.errAt(base+".version", "image_set.version %q must be 1-63 letters, digits, '.', '_', '+' or '-'", f.Version)
		ok = false
	}
	if !slices.Contains(cpuArchs, is.CPUArch) {
		c.errAt(base+".cpu_arch", "image_set.cpu_arch %q must be one of %s", is.CPUArch, quoteList(cpuArchs))
		ok = false
	}
	live, good := c.live(base, f, is.CPUArch)
	ok = ok && good
	if is.Live = live; live != nil {
		is.BaseISO = live.ISO
	} else if good {
		ok = c.imageSetProfile(base+".profile", f.Profile) && ok
		is.BaseISO = c.file(base+".base_iso", f.BaseISO, false)
	}
	is.Install, ok = c.imageSetInstall(base, f, ok)
	if live != nil { // the sums checked, from the file or the stream
		is.Install.ISOSHA256, is.Install.RootfsSHA256 = live.ISOSHA256, live.RootfsSHA256
		streamDiskImage(&is.Install, live)
	}
	if c.ix.has(base + ".thresholds") {
		o, good := c.thresholdOverride(base+".thresholds", f.Thresholds)
		is.Thresholds, ok = &o, ok && good
	}
	return is, ok
}

// imageSetProfile checks that an image set names a [[profile]].
func (c *checker) imageSetProfile(path, name string) bool {
	if name == "" {
		c.missing(path, "name the [[profile]] whose kernel and initrd hosts of this image set boot")
		return false
	}
	var names []string
	for _, p := range c.cfg.Profiles {
		if p.Name == name {
			return true
		}
		names = append(names, p.Name)
	}
	msg := fmt.Sprintf("%s %q names no [[profile]]", display(path), name)
	if guess := closest(name, names); guess != "" {
		msg += fmt.Sprintf("; did you mean %q?", guess)
	} else if len(names) > 0 {
		msg += "; the profiles are " + quoteList(names)
	}
	c.errAt(path, "%s", msg)
	return false
}
