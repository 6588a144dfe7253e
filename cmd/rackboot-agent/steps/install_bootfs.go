package steps

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rackboot/rackboot/boot/installerargs"
)

// CoreOS metal images written by the agent itself (no coreos-installer in
// the live system): the image must have a GPT partition named "boot" (a
// CoreOS metal image's boot file system, ext4), and the agent finishes it
// the way coreos-installer does, on that file system (bootfsFiles):
//
//   - the host's Ignition as ignition/config.ign (directory 0700, file
//     0600), which the first boot applies (the image's ignition.firstboot
//     stamp is already there);
//   - installer_args' --append-karg and --delete-karg applied to the
//     options line of every BLS entry (loader/entries/*.conf);
//   - the live system's NetworkManager keyfiles copied into
//     coreos-firstboot-network/ (with --copy-network, or when there are
//     keyfiles: static networking).

// BootPartitionName is the GPT partition name of a CoreOS image's boot
// file system (ext4, file system label "boot").
const BootPartitionName = "boot"

// bootEdits is what goes onto a CoreOS boot file system.
type bootEdits struct {
	ignition   []byte
	appendArgs []string
	deleteArgs []string
	keyfiles   map[string][]byte // file name -> contents
}

// coreosEdits gathers the edits of an install: the Ignition, the kernel
// arguments of installer_args, and the keyfiles of networkDir when
// --copy-network is given or there are some.
func coreosEdits(ign []byte, installerArgs []string, networkDir string) (bootEdits, error) {
	args, err := checkInstallerArgs(installerArgs)
	if err != nil {
		return bootEdits{}, err
	}
	e := bootEdits{ignition: ign, keyfiles: map[string][]byte{}}
	for i := 0; i < len(args); i++ {
		flag, val, inline := strings.Cut(args[i], "=")
		if installerargs.TakesValue(flag) && !inline {
			i++
			val = args[i]
		}
		switch flag {
		case "--append-karg":
			e.appendArgs = append(e.appendArgs, val)
		case "--delete-karg":
			e.deleteArgs = append(e.deleteArgs, val)
		case "--network-dir":
			networkDir = val
		}
	}
	if networkDir == "" {
		networkDir = DefaultNetworkDir
	}
	names, _ := filepath.Glob(filepath.Join(networkDir, "*.nmconnection"))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return bootEdits{}, fail(ErrInstall, err, "reading the network keyfile %s", filepath.Base(n))
		}
		e.keyfiles[filepath.Base(n)] = b
	}
	return e, nil
}

// bootfsFiles applies e to the boot file system mounted at root.
func bootfsFiles(root string, e bootEdits) error {
	ignDir := filepath.Join(root, "ignition")
	if err := os.MkdirAll(ignDir, 0o700); err != nil {
		return fail(ErrDevice, err, "creating ignition/ on the boot file system")
	}
	if err := os.Chmod(ignDir, 0o700); err != nil {
		return fail(ErrDevice, err, "creating ignition/ on the boot file system")
	}
	if err := writeSynced(filepath.Join(ignDir, "config.ign"), e.ignition); err != nil {
		return fail(ErrDevice, err, "writing ignition/config.ign on the boot file system")
	}
	entries, _ := filepath.Glob(filepath.Join(root, "loader", "entries", "*.conf"))
	if len(entries) == 0 && len(e.appendArgs)+len(e.deleteArgs) > 0 {
		return fail(ErrNoPartition, nil, "the boot file system has no loader/entries/*.conf to put the kernel arguments in")
	}
	for _, path := range entries {
		if err := editBLS(path, e.appendArgs, e.deleteArgs); err != nil {
			return err
		}
	}
	if len(e.keyfiles) == 0 {
		return nil
	}
	netDir := filepath.Join(root, "coreos-firstboot-network")
	if err := os.MkdirAll(netDir, 0o700); err != nil {
		return fail(ErrDevice, err, "creating coreos-firstboot-network/ on the boot file system")
	}
	for name, data := range e.keyfiles {
		if err := writeSynced(filepath.Join(netDir, name), data); err != nil {
			return fail(ErrDevice, err, "copying the network keyfile %s", name)
		}
	}
	return nil
}

// editBLS deletes and appends kernel arguments on the options line of the
// BLS entry at path.
func editBLS(path string, add, del []string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return fail(ErrDevice, err, "reading the boot entry %s", filepath.Base(path))
	}
	lines := strings.Split(string(raw), "\n")
	found := false
	for i, l := range lines {
		key, rest, _ := strings.Cut(l, " ")
		if key != "options" {
			continue
		}
		found = true
		args := slices.DeleteFunc(strings.Fields(rest), func(a string) bool { return slices.Contains(del, a) })
		for _, a := range add {
			if !slices.Contains(args, a) {
				args = append(args, a)
			}
		}
		lines[i] = "options " + strings.Join(args, " ")
	}
	if !found {
		return fail(ErrNoPartition, nil, "the boot entry %s has no options line", filepath.Base(path))
	}
	if err := writeSynced(path, []byte(strings.Join(lines, "\n"))); err != nil {
		return fail(ErrDevice, err, "writing the boot entry %s", filepath.Base(path))
	}
	return nil
}

// writeSynced writes data to path (0600 for a new file) and syncs it.
func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if serr := f.Sync(); err == nil {
		err = serr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return nil
}
