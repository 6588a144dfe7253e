package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

// Generators of role Ignition an image set may name.
const (
	GeneratorUserConfigs      = "user-configs"
	GeneratorOpenShiftInstall = "openshift-install"
)

// ImageSetInstall is what an image set installs: the disk image written to
// installing hosts and where their role Ignition comes from.
type ImageSetInstall struct {
	// DiskImage is the raw OS disk image ("" : the image set does not
	// install); DiskImageSHA256 its hex sha256 — the file's value when
	// given, else computed from the file when the configuration is
	// loaded; DiskImageSize its size.
	DiskImage       string
	DiskImageSHA256 string
	DiskImageSize   int64
	// Generator is GeneratorUserConfigs (the default) or
	// GeneratorOpenShiftInstall.
	Generator string
	// RoleIgnitionDir holds bootstrap.ign, master.ign and worker.ign
	// (user configs); OpenShiftInstall is the openshift-install binary.
	RoleIgnitionDir  string
	OpenShiftInstall string
	// ReleaseImage is the OpenShift release image (handed to
	// openshift-install).
	ReleaseImage string
	// KernelSHA256, InitrdSHA256, RootfsSHA256 and ISOSHA256 record the
	// discovery artifacts' sha256 ("" when not given).
	KernelSHA256, InitrdSHA256, RootfsSHA256, ISOSHA256 string
}

var (
	sha256Hex    = regexp.MustCompile(`^[0-9a-f]{64}$`)
	releaseImage = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/:@+-]{0,511}$`)
)

// imageSetInstall checks an image set's install keys; ok is false when
// one is wrong (or was already).
func (c *checker) imageSetInstall(base string, f fileImageSet, ok bool) (ImageSetInstall, bool) {
	in := ImageSetInstall{Generator: c.str(base+".generator", f.Generator, GeneratorUserConfigs),
		ReleaseImage: f.ReleaseImage}
	for _, h := range []struct {
		key string
		v   string
		dst *string
	}{{"disk_image_sha256", f.DiskImageSHA256, &in.DiskImageSHA256}, {"kernel_sha256", f.KernelSHA256, &in.KernelSHA256},
		{"initrd_sha256", f.InitrdSHA256, &in.InitrdSHA256}, {"rootfs_sha256", f.RootfsSHA256, &in.RootfsSHA256},
		{"iso_sha256", f.ISOSHA256, &in.ISOSHA256}} {
		if h.v != "" && !sha256Hex.MatchString(strings.ToLower(h.v)) {
			c.errAt(base+"."+h.key, "image_set.%s %q is not 64 hexadecimal digits", h.key, h.v)
			ok = false
		}
		*h.dst = strings.ToLower(h.v)
	}
	if f.ReleaseImage != "" && !releaseImage.MatchString(f.ReleaseImage) {
		c.errAt(base+".release_image", "image_set.release_image %q is not an image reference", f.ReleaseImage)
		ok = false
	}
	switch in.Generator {
	case GeneratorUserConfigs:
		if f.RoleIgnitionDir != "" {
			in.RoleIgnitionDir = c.path(f.RoleIgnitionDir)
			c.exists(base+".role_ignition_dir", f.RoleIgnitionDir, in.RoleIgnitionDir, true)
		}
	case GeneratorOpenShiftInstall:
		in.OpenShiftInstall = c.file(base+".openshift_install", f.OpenShiftInstall, true)
	default:
		c.errAt(base+".generator", "image_set.generator %q must be %q or %q", in.Generator, GeneratorUserConfigs, GeneratorOpenShiftInstall)
		ok = false
	}
	if f.DiskImage == "" {
		return in, ok
	}
	if in.Generator == GeneratorUserConfigs && f.RoleIgnitionDir == "" {
		c.missing(base+".role_ignition_dir", "name the directory with master.ign and worker.ign (and bootstrap.ign) that installing hosts get, or set generator = \"openshift-install\"")
		ok = false
	}
	in.DiskImage = c.file(base+".disk_image", f.DiskImage, true)
	return c.diskImage(base, f.DiskImage, in, ok)
}

// diskImage records the disk image's size and, when the file gives none,
// its sha256 (read once, here).
func (c *checker) diskImage(base, written string, in ImageSetInstall, ok bool) (ImageSetInstall, bool) {
	fi, err := os.Stat(in.DiskImage)
	if err != nil || !fi.Mode().IsRegular() {
		return in, false // exists reported it
	}
	in.DiskImageSize = fi.Size()
	if in.DiskImageSHA256 != "" {
		return in, ok
	}
	sum, err := fileSHA256(in.DiskImage)
	if err != nil {
		c.errAt(base+".disk_image", "image_set.disk_image %q cannot be read: %s", written, pathErr(err))
		return in, false
	}
	in.DiskImageSHA256 = sum
	return in, ok
}

// fileSHA256 is the hex sha256 of the file at path.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("reading: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
