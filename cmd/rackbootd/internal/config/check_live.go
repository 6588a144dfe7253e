package config

import (
	"context"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rackboot/rackboot/boot/coreos"
	"github.com/rackboot/rackboot/ipxe"
)

// Live is a CoreOS image set's live artifacts: the live ISO and rootfs,
// named directly (live_iso and live_rootfs, AgentServiceConfig's osImages
// pair) or found through a stream.json (coreos_stream) in a mirror
// directory (coreos_mirror, by default the stream's). Its hosts PXE boot
// the kernel and initramfs of the ISO's images/pxeboot/ with the rootfs
// URL, and virtual media hosts the ISO itself.
type Live struct {
	Arch         string // x86_64 or aarch64
	ISO          string
	ISOSHA256    string // "" when neither the file nor a stream gives it
	Rootfs       string
	RootfsSHA256 string
	Stream       string // the stream.json used ("" for the pair)
	// Metal and MetalSHA256 are the stream's metal .raw.xz in the mirror
	// ("" when it names none): the image set's disk image unless
	// disk_image names another (see imageSet).
	Metal, MetalSHA256 string
	// KernelArgs are the image set's extra live kernel arguments
	// (kernel_arguments).
	KernelArgs string
	// Kernel and Initrd are the PXE files taken out of the ISO; the
	// daemon fills them in when it loads the file (boot/coreos.ExtractPXE).
	Kernel, Initrd string
}

// live checks an image set's CoreOS keys: nil when it has none. ok is
// false when one is wrong. The sha256 the file or the stream gives are
// checked against the files here, at load.
func (c *checker) live(base string, f fileImageSet, arch string) (*Live, bool) {
	pair := f.LiveISO != "" || f.LiveRootfs != ""
	if !pair && f.CoreOSStream == "" {
		if f.CoreOSMirror != "" || f.KernelArguments != "" {
			c.errAt(base+".coreos_mirror", "image_set.coreos_mirror and kernel_arguments need live_iso and live_rootfs, or coreos_stream")
			return nil, false
		}
		return nil, true
	}
	ok := c.liveExclusive(base, f, pair)
	l := &Live{Arch: coreos.Arch(arch), KernelArgs: f.KernelArguments}
	if l.Arch == "" {
		c.errAt(base+".cpu_arch", "image_set.cpu_arch %q: CoreOS image sets are x86_64 (amd64) or aarch64 (arm64)", arch)
		ok = false
	}
	if err := ipxe.CheckKernelArgs(f.KernelArguments); err != nil {
		c.errAt(base+".kernel_arguments", "image_set.kernel_arguments: %s", unsafeReason(f.KernelArguments))
		ok = false
	}
	if !ok {
		return nil, false
	}
	agentOK := c.agent(base+".cpu_arch", l.Arch)
	if pair {
		ok = c.livePair(base, f, l)
	} else {
		ok = c.liveStream(base, f, l)
	}
	ok = ok && agentOK
	if !ok {
		return nil, false
	}
	err := coreos.Verify(context.Background(), coreos.File{Path: l.ISO, SHA256: l.ISOSHA256},
		coreos.File{Path: l.Rootfs, SHA256: l.RootfsSHA256}, coreos.File{Path: l.Metal, SHA256: l.MetalSHA256})
	if err != nil {
		key := map[bool]string{true: ".live_iso", false: ".coreos_stream"}[pair]
		c.errAt(base+key, "image_set %q: %s", f.Name, err)
		return nil, false
	}
	return l, true
}

// liveExclusive reports the keys a CoreOS image set cannot combine.
func (c *checker) liveExclusive(base string, f fileImageSet, pair bool) bool {
	ok := true
	bad := func(key, msg string) {
		c.errAt(base+"."+key, "%s", msg)
		ok = false
	}
	if pair && f.CoreOSStream != "" {
		bad("coreos_stream", "image_set.coreos_stream cannot be combined with live_iso and live_rootfs: give one or the other")
	}
	if f.Profile != "" {
		bad("profile", "image_set.profile cannot be combined with CoreOS artifacts: their hosts boot the kernel and initramfs of the live ISO")
	}
	if f.BaseISO != "" {
		bad("base_iso", "image_set.base_iso cannot be combined with CoreOS artifacts: virtual media hosts boot the live ISO")
	}
	if f.CoreOSStream != "" && (f.ISOSHA256 != "" || f.RootfsSHA256 != "") {
		bad("coreos_stream", "image_set.iso_sha256 and rootfs_sha256 come from coreos_stream: remove them")
	}
	if f.CoreOSMirror != "" && f.CoreOSStream == "" {
		bad("coreos_mirror", "image_set.coreos_mirror is the directory of coreos_stream's artifacts: set coreos_stream")
	}
	return ok
}

// livePair takes live_iso and live_rootfs, with iso_sha256 and
// rootfs_sha256 when given.
func (c *checker) livePair(base string, f fileImageSet, l *Live) bool {
	if f.LiveISO == "" || f.LiveRootfs == "" {
		c.missing(base+".live_rootfs", "a CoreOS image set needs both live_iso and live_rootfs (AgentServiceConfig's url and rootFSUrl)")
		return false
	}
	l.ISO = c.file(base+".live_iso", f.LiveISO, true)
	l.Rootfs = c.file(base+".live_rootfs", f.LiveRootfs, true)
	l.ISOSHA256, l.RootfsSHA256 = lower(f.ISOSHA256), lower(f.RootfsSHA256)
	return regular(l.ISO) && regular(l.Rootfs)
}

// liveStream reads coreos_stream and finds the architecture's live ISO
// and rootfs in the mirror.
func (c *checker) liveStream(base string, f fileImageSet, l *Live) bool {
	l.Stream = c.file(base+".coreos_stream", f.CoreOSStream, true)
	if !regular(l.Stream) {
		return false
	}
	mirror := filepath.Dir(l.Stream)
	if f.CoreOSMirror != "" {
		mirror = c.path(f.CoreOSMirror)
		c.exists(base+".coreos_mirror", f.CoreOSMirror, mirror, true)
	}
	a, err := coreos.FromStream(l.Stream, mirror, l.Arch)
	if err != nil {
		key := ".coreos_stream"
		if f.CoreOSMirror != "" && !errors.Is(err, coreos.ErrStream) && !errors.Is(err, coreos.ErrArch) {
			key = ".coreos_mirror"
		}
		c.errAt(base+key, "image_set %q: %s", f.Name, err)
		return false
	}
	l.ISO, l.ISOSHA256, l.Rootfs, l.RootfsSHA256 = a.ISO.Path, a.ISO.SHA256, a.Rootfs.Path, a.Rootfs.SHA256
	l.Metal, l.MetalSHA256 = a.Metal.Path, a.Metal.SHA256
	return true
}

// regular reports whether path is a regular file (exists reported why not).
func regular(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

func lower(s string) string { return strings.ToLower(s) }

// DefaultAgentDir is where the package installs rackboot-agent for each
// architecture.
const DefaultAgentDir = "/usr/lib/rackboot/agent"

// agent finds and hashes, once, the rackboot-agent for a stream
// architecture under server.agent_dir; false (reported) when missing.
func (c *checker) agent(key, arch string) bool {
	goarch := liveGoarch(arch)
	if err := c.cfg.AddLiveAgent(arch); err != nil {
		p := filepath.Join(c.cfg.Server.AgentDir, goarch, "rackboot-agent")
		c.errAt(key, "a CoreOS image set of %s needs rackboot-agent built for %s at %s (server.agent_dir; make build writes bin/agent/%s/): %s",
			arch, goarch, p, goarch, pathErr(err))
		return false
	}
	return true
}

// AddLiveAgent finds and hashes, unless done, the rackboot-agent under
// server.agent_dir that a CoreOS image set of arch (x86_64, aarch64)
// needs, as loading an [[image_set]] does; the daemon calls it for the
// image sets it adds (AgentServiceConfig osImages).
func (c *Config) AddLiveAgent(arch string) error {
	goarch := liveGoarch(arch)
	s := &c.Server
	if _, ok := s.Agents[goarch]; ok {
		return nil
	}
	p := filepath.Join(s.AgentDir, goarch, "rackboot-agent")
	sum, err := fileSHA512(p)
	if err != nil {
		return err
	}
	if s.Agents == nil {
		s.Agents = map[string]Agent{}
	}
	s.Agents[goarch] = Agent{Path: p, SHA512: sum}
	return nil
}

func liveGoarch(arch string) string {
	return map[string]string{"x86_64": "amd64", "aarch64": "arm64"}[arch]
}

// fileSHA512 is the hex sha512 of the file at path.
func fileSHA512(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha512.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// streamDiskImage makes the stream's metal .raw.xz the image set's disk
// image when it installs (role_ignition_dir or openshift-install given)
// and disk_image names none: the agent (or coreos-installer) decompresses
// it while writing; its sha256 is the stream's, checked at load.
func streamDiskImage(in *ImageSetInstall, l *Live) {
	if l == nil || l.Metal == "" || in.DiskImage != "" || (in.RoleIgnitionDir == "" && in.OpenShiftInstall == "") {
		return
	}
	fi, err := os.Stat(l.Metal)
	if err != nil {
		return // FromStream found it; a file gone since is served as an error
	}
	in.DiskImage, in.DiskImageSHA256, in.DiskImageSize = l.Metal, l.MetalSHA256, fi.Size()
}
