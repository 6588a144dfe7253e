package buildfs

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

// Lib is a shared library a program links: Name is its path in an
// archive (the path the dynamic loader looks for, without the leading
// slash), Src the host file it is copied from, symlinks resolved.
type Lib struct {
	Name string
	Src  string
}

// SharedLibs runs ldd on bin and returns the libraries it links, the
// dynamic loader included, sorted by name.
func SharedLibs(ctx context.Context, bin string) ([]Lib, error) {
	out, err := exec.CommandContext(ctx, "ldd", bin).Output()
	if err != nil {
		return nil, fmt.Errorf("ldd %s: %w", bin, err)
	}
	paths, err := ParseLdd(string(out))
	if err != nil {
		return nil, err
	}
	libs := make([]Lib, 0, len(paths))
	for _, p := range paths {
		src, err := filepath.EvalSymlinks(p)
		if err != nil {
			return nil, err
		}
		libs = append(libs, Lib{Name: strings.TrimPrefix(path.Clean(p), "/"), Src: src})
	}
	return libs, nil
}

// ParseLdd returns the absolute library paths of ldd's output, sorted. A
// library ldd could not find is an error, and so is a path with "..";
// the vDSO has no file and is left out.
func ParseLdd(out string) ([]string, error) {
	var paths []string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.Contains(line, "statically linked") {
			continue
		}
		if strings.Contains(line, "not found") {
			return nil, fmt.Errorf("ldd: %s", line)
		}
		f := strings.Fields(line)
		p := f[0]
		if len(f) >= 3 && f[1] == "=>" {
			p = f[2]
		}
		if !strings.HasPrefix(p, "/") {
			continue // linux-vdso.so.1 (0x...)
		}
		if strings.Contains(p, "/../") || strings.HasSuffix(p, "/..") {
			return nil, fmt.Errorf("ldd: odd path %q", p)
		}
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths, nil
}
