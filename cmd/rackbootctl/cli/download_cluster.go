package cli

import (
	"context"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
)

// clusterFiles are the names download files and download credentials
// accept, and whether the file holds a secret (a pull secret, a client
// key) and is therefore never written to a terminal.
var clusterFiles = map[string]map[string]bool{
	"files": {
		client.FileInstallConfig: true, client.FileBootstrapIgn: true, client.FileMasterIgn: false,
		client.FileWorkerIgn: false, client.FileMetadata: false,
	},
	"credentials": {client.CredKubeconfig: true, client.CredKubeadminPassword: false},
}

// downloadCluster is "download files|credentials NAME --cluster C [-o FILE]"
// (the cluster may also follow NAME).
func (a *app) downloadCluster(ctx context.Context, kind string, args []string) error {
	names := clusterFiles[kind]
	known := make([]string, 0, len(names))
	for n := range names {
		known = append(known, n)
	}
	slices.Sort(known)
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return usageError("download %s: which one? (%s)", kind, strings.Join(known, ", "))
	}
	name, args := args[0], args[1:]
	secret, ok := names[name]
	if !ok {
		return usageError("download %s: unknown name %q (want %s)", kind, name, strings.Join(known, ", "))
	}
	var cluster, out string
	fs := a.flagSet("download " + kind)
	fs.StringVar(&cluster, "cluster", "", "cluster `ID` or name (required)")
	fs.StringVar(&out, "o", "", "write to `file` (mode 0600) instead of standard output")
	pos, err := a.parse(fs, args, "download "+kind+" NAME --cluster ID [-o FILE]")
	if err != nil {
		return err
	}
	if len(pos) == 1 && cluster == "" {
		cluster, pos = pos[0], nil
	}
	if err := exactArgs("download "+kind, pos, 0, "--cluster and -o only"); err != nil {
		return err
	}
	if cluster == "" {
		return usageError("download %s needs --cluster", kind)
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	id, err := a.clusterID(ctx, c, cluster)
	if err != nil {
		return err
	}
	get := c.DownloadClusterFile
	if kind == "credentials" {
		get = c.DownloadCredentials
	}
	if out == "" || out == "-" {
		if secret && isTerminal(a.env.Stdout) {
			return usageError("%s holds secrets: write it to a file with -o FILE, or pipe it", name)
		}
		_, err := get(ctx, id, name, a.env.Stdout)
		return err
	}
	return writeFileAtomic(out, func(f *os.File) error {
		_, err := get(ctx, id, name, io.Writer(f))
		return err
	})
}
