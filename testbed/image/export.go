package image

import (
	"context"
	"path/filepath"
)

// Kernel is Debian's kernel as FetchKernel extracted it.
type Kernel struct {
	Package string            // file name of the kernel package, e.g. linux-image-6.1.0-56-amd64_..._amd64.deb
	Vmlinuz string            // path of the bzImage
	Modules map[string]string // module name -> path of its .ko
}

// FetchKernel gets the kernel package Build uses (downloaded once into
// cacheDir/debs, as Build does) and extracts its bzImage and the modules
// mods into dir, which must exist. It does not touch Build's images.
func FetchKernel(ctx context.Context, cacheDir, dir string, mods []string) (Kernel, error) {
	deb, err := kernelDeb(ctx, filepath.Join(cacheDir, "debs"))
	if err != nil {
		return Kernel{}, err
	}
	kf, err := extractKernel(ctx, deb, dir, mods)
	if err != nil {
		return Kernel{}, err
	}
	return Kernel{Package: filepath.Base(deb), Vmlinuz: kf.kernel, Modules: kf.modules}, nil
}

// KernelPackage names the kernel package FetchKernel would use, downloading
// it first when it is not in cacheDir/debs yet.
func KernelPackage(ctx context.Context, cacheDir string) (string, error) {
	deb, err := kernelDeb(ctx, filepath.Join(cacheDir, "debs"))
	if err != nil {
		return "", err
	}
	return filepath.Base(deb), nil
}

// StaticFile is a file of the discovery image that is part of its source.
type StaticFile struct {
	Name string // path inside the initrd, without a leading slash
	Mode uint32 // permission bits
	Body string
}

// DiscoveryFiles returns the discovery image's files other than binaries
// and modules: the account databases, the udhcpc event script and the
// useradd/usermod/groupadd scripts Ignition's files stage runs. Another
// image that applies Ignition the same way carries the same files.
func DiscoveryFiles() []StaticFile {
	var out []StaticFile
	for _, f := range discoveryStatic() {
		out = append(out, StaticFile{Name: f.name, Mode: uint32(f.mode.Perm()), Body: f.body})
	}
	return out
}
