package osimage

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// bootFS returns debugfs's name for the boot file system of the disk image
// at disk: the file with the partition's offset as an I/O option.
func bootFS(disk string) (string, error) {
	f, err := os.Open(disk)
	if err != nil {
		return "", fmt.Errorf("osimage: %w", err)
	}
	defer f.Close()
	parts, err := ReadGPT(f)
	if err != nil {
		return "", err
	}
	p, err := FindPartition(parts, BootName)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s?offset=%d", disk, p.Offset()), nil
}

// debugfs runs debugfs's commands (one a line) on the file system fs, for
// writing when write is set. debugfs exits 0 whatever its commands did:
// every line it prints that is not an echoed command is an error.
func debugfs(ctx context.Context, fs string, write bool, cmds ...string) error {
	args := []string{"-f", "-"}
	if write {
		args = append([]string{"-w"}, args...)
	}
	cmd := exec.CommandContext(ctx, "debugfs", append(args, fs)...)
	cmd.Stdin = strings.NewReader(strings.Join(cmds, "\n") + "\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("osimage: debugfs: %w: %s", err, bytes.TrimSpace(out))
	}
	for _, l := range strings.Split(string(out), "\n") {
		if l == "" || strings.HasPrefix(l, "debugfs ") || strings.HasPrefix(l, "debugfs: ") || strings.HasPrefix(l, "Allocated inode") {
			continue
		}
		return fmt.Errorf("osimage: debugfs on the boot file system: %s", l)
	}
	return nil
}

// ReadBootFile returns the file name (a path relative to the file
// system's root) of the boot file system of the disk image at disk, read
// with debugfs; ok is false when there is no such file.
func ReadBootFile(ctx context.Context, disk, name string) (data []byte, ok bool, err error) {
	fs, err := bootFS(disk)
	if err != nil {
		return nil, false, err
	}
	p := path.Join("/", name)
	if typ, err := fileType(ctx, fs, p); err != nil || typ != "regular" {
		return nil, false, err
	}
	out, err := exec.CommandContext(ctx, "debugfs", "-R", "cat "+p, fs).Output()
	if err != nil {
		return nil, false, fmt.Errorf("osimage: debugfs cat %s: %w", p, err)
	}
	return out, true, nil
}

// fileType is the type debugfs gives the file p of fs ("regular",
// "directory"...), "" when there is no such file.
func fileType(ctx context.Context, fs, p string) (string, error) {
	st, _ := exec.CommandContext(ctx, "debugfs", "-R", "stat "+p, fs).CombinedOutput()
	if strings.Contains(string(st), "File not found") {
		return "", nil
	}
	_, rest, ok := strings.Cut(string(st), "Type: ")
	if !ok {
		return "", fmt.Errorf("osimage: %s on the boot file system: %s", p, bytes.TrimSpace(st))
	}
	return strings.Fields(rest)[0], nil
}

// WriteBootFile writes data as the file name (a path relative to the root,
// its directory existing) of the boot file system of the disk image at
// disk with the permission bits mode, replacing the file there, without
// mounting anything (debugfs).
func WriteBootFile(ctx context.Context, disk, name string, data []byte, mode os.FileMode) error {
	fs, err := bootFS(disk)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "osimage-bootfile-")
	if err != nil {
		return fmt.Errorf("osimage: %w", err)
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, "file")
	if err := os.WriteFile(src, data, 0o600); err != nil {
		return fmt.Errorf("osimage: %w", err)
	}
	p := path.Join("/", name)
	if _, ok, err := ReadBootFile(ctx, disk, name); err != nil {
		return err
	} else if ok {
		if err := debugfs(ctx, fs, true, "rm "+p); err != nil {
			return err
		}
	}
	return debugfs(ctx, fs, true, "write "+src+" "+p, fmt.Sprintf("set_inode_field %s mode 0100%03o", p, mode.Perm()))
}

// WriteIgnition writes config to ignition/config.ign on the boot file
// system of the disk image at path (directory 0700, file 0600), where
// coreos-installer and rackboot's installer put the host's Ignition, for
// tests that install a disk without the installer.
func WriteIgnition(path string, config []byte) error {
	ctx := context.Background()
	fs, err := bootFS(path)
	if err != nil {
		return err
	}
	dir := "/" + filepath.Dir(ConfigPath)
	if typ, err := fileType(ctx, fs, dir); err != nil {
		return err
	} else if typ == "" {
		if err := debugfs(ctx, fs, true, "mkdir "+dir, "set_inode_field "+dir+" mode 040700"); err != nil {
			return err
		}
	}
	return WriteBootFile(ctx, path, ConfigPath, config, 0o600)
}
