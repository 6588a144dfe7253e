package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
)

// flagSet is what command-specific flag hooks get.
type flagSet = *flag.FlagSet

// downloadable files: what the user types → file_name.
var downloadFiles = map[string]string{
	"discovery-ignition": client.FileDiscoveryIgnition,
	"discovery.ign":      client.FileDiscoveryIgnition,
	"ipxe-script":        client.FileIPXEScript,
}

func (a *app) download(ctx context.Context, args []string) error {
	if len(args) > 0 && (args[0] == "credentials" || args[0] == "files") {
		return a.downloadCluster(ctx, args[0], args[1:])
	}
	if len(args) == 0 || downloadFiles[args[0]] == "" {
		return usageError("download: which file? (discovery-ignition, ipxe-script, credentials NAME, files NAME)")
	}
	name, args := downloadFiles[args[0]], args[1:]
	var infraEnv, out string
	fs := a.flagSet("download")
	fs.StringVar(&infraEnv, "infra-env", "", "infra-env `ID` (required)")
	fs.StringVar(&out, "o", "", "write to `file` (mode 0600) instead of standard output")
	pos, err := a.parse(fs, args, "download discovery-ignition|ipxe-script --infra-env ID [-o FILE]")
	if err != nil {
		return err
	}
	if len(pos) == 1 && infraEnv == "" {
		infraEnv, pos = pos[0], nil
	}
	if err := exactArgs("download", pos, 0, "--infra-env and -o only"); err != nil {
		return err
	}
	if infraEnv == "" {
		return usageError("download needs --infra-env")
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	if infraEnv, err = a.infraEnvID(ctx, c, infraEnv); err != nil {
		return err
	}
	if out == "" || out == "-" {
		if name == client.FileDiscoveryIgnition && isTerminal(a.env.Stdout) {
			return usageError("the discovery Ignition holds the pull secret and an agent token: " +
				"write it to a file with -o FILE, or pipe it")
		}
		_, err := c.DownloadInfraEnvFile(ctx, infraEnv, name, a.env.Stdout)
		return err
	}
	return writeFileAtomic(out, func(f *os.File) error {
		_, err := c.DownloadInfraEnvFile(ctx, infraEnv, name, f)
		return err
	})
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// writeFileAtomic writes path through a 0600 temporary file in the same
// directory, renamed into place only when write succeeded.
func writeFileAtomic(path string, write func(*os.File) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(f.Name()) // no-op once renamed
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

func (a *app) imageURL(ctx context.Context, args []string) error {
	c, id, ref, err := a.infraEnvArg(ctx, "image-url", "INFRA-ENV-ID", "one infra-env ID", args)
	if err != nil {
		return err
	}
	u, err := c.ImageURL(ctx, id)
	if err != nil {
		return fmt.Errorf("image URL of infra-env %s: %w", ref, err)
	}
	return a.say("%s\n", u.URL)
}

func (a *app) version(ctx context.Context, args []string) error {
	var clientOnly bool
	fs := a.flagSet("version")
	fs.BoolVar(&clientOnly, "client", false, "print the client version only")
	pos, err := a.parse(fs, args, "version [--client]")
	if err != nil {
		return err
	}
	if err := exactArgs("version", pos, 0, "no arguments"); err != nil {
		return err
	}
	if err := a.say("rackbootctl %s (%s, %s/%s)\n", a.env.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH); err != nil || clientOnly {
		return err
	}
	tok, _ := a.findToken() // the API document is public; a token is not needed
	c, err := a.newClient(tok)
	if err != nil {
		return err
	}
	v, err := c.ServerVersion(ctx)
	if err != nil {
		return fmt.Errorf("server %s: %w", c.BaseURL(), err)
	}
	return a.say("server %s: API %s\n", c.BaseURL(), v)
}
