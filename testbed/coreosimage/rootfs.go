package coreosimage

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rackboot/rackboot/testbed/internal/buildfs"
)

// RootfsPrograms are the host programs the live rootfs carries, with the
// shared libraries they link: the userland beyond busybox that the agent's
// steps use (xz decompresses .raw.xz metal images; curl is CoreOS's fetcher).
var RootfsPrograms = []string{"/usr/bin/curl", "/usr/bin/xz"}

// rootfsEntries are the programs and their libraries (found with ldd), at
// their host paths.
func rootfsEntries(ctx context.Context, programs []string) ([]buildfs.Entry, error) {
	seen := map[string]bool{}
	var es []buildfs.Entry
	add := func(name, src string) {
		if !seen[name] {
			seen[name] = true
			es = append(es, buildfs.Entry{Name: name, Mode: 0o755, Src: src})
		}
	}
	for _, p := range programs {
		src, err := filepath.EvalSymlinks(p)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBuild, err)
		}
		add(strings.TrimPrefix(path.Clean(p), "/"), src)
		libs, err := buildfs.SharedLibs(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBuild, err)
		}
		for _, l := range libs {
			add(l.Name, l.Src)
		}
	}
	sort.Slice(es, func(i, j int) bool { return es[i].Name < es[j].Name })
	return es, nil
}

// writeRootfs writes the live rootfs (a gzip newc cpio) to name.
func writeRootfs(ctx context.Context, name string, programs []string) error {
	es, err := rootfsEntries(ctx, programs)
	if err != nil {
		return err
	}
	return writeArchiveFile(name, nil, es)
}
