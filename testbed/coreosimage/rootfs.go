package coreosimage

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// RootfsPrograms are the host programs the live rootfs carries, with the
// shared libraries they link: the userland beyond busybox that the agent's
// steps use (xz decompresses .raw.xz metal images; curl is CoreOS's fetcher).
var RootfsPrograms = []string{"/usr/bin/curl", "/usr/bin/xz"}

// rootfsEntries are the programs and their libraries (found with ldd), at
// their host paths.
func rootfsEntries(ctx context.Context, programs []string) ([]entry, error) {
	seen := map[string]bool{}
	var es []entry
	add := func(name, src string) {
		if !seen[name] {
			seen[name] = true
			es = append(es, entry{name: name, mode: 0o755, src: src})
		}
	}
	for _, p := range programs {
		src, err := filepath.EvalSymlinks(p)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBuild, err)
		}
		add(strings.TrimPrefix(path.Clean(p), "/"), src)
		libs, err := sharedLibs(ctx, p)
		if err != nil {
			return nil, err
		}
		for _, l := range libs {
			src, err := filepath.EvalSymlinks(l)
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrBuild, err)
			}
			add(strings.TrimPrefix(path.Clean(l), "/"), src)
		}
	}
	sort.Slice(es, func(i, j int) bool { return es[i].name < es[j].name })
	return es, nil
}

// sharedLibs runs ldd on bin and returns the absolute paths of the
// libraries it links, the dynamic loader included.
func sharedLibs(ctx context.Context, bin string) ([]string, error) {
	out, err := exec.CommandContext(ctx, "ldd", bin).Output()
	if err != nil {
		return nil, fmt.Errorf("%w: ldd %s: %w", ErrBuild, bin, err)
	}
	return parseLdd(string(out))
}

// parseLdd returns the absolute library paths of ldd's output. A library
// ldd could not find is an error; the vDSO has no file and is left out.
func parseLdd(out string) ([]string, error) {
	var paths []string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.Contains(line, "statically linked") {
			continue
		}
		if strings.Contains(line, "not found") {
			return nil, fmt.Errorf("%w: ldd: %s", ErrBuild, line)
		}
		f := strings.Fields(line)
		p := f[0]
		if len(f) >= 3 && f[1] == "=>" {
			p = f[2]
		}
		if strings.HasPrefix(p, "/") {
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// writeRootfs writes the live rootfs (a gzip newc cpio) to name.
func writeRootfs(ctx context.Context, name string, programs []string) error {
	es, err := rootfsEntries(ctx, programs)
	if err != nil {
		return err
	}
	return writeArchiveFile(name, dirsOf(nil, es), es)
}
