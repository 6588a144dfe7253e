package cli

import (
	"context"
	"encoding/base64"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/cmd/rackbootctl/output"
)

// getInstallConfig is "get install-config CLUSTER": the install-config.yaml
// rackboot generates for the cluster, overrides applied.
func (a *app) getInstallConfig(ctx context.Context, args []string) error {
	c, id, err := a.clusterArg(ctx, "get install-config", args, nil)
	if err != nil {
		return err
	}
	ic, err := c.InstallConfig(ctx, id)
	if err != nil {
		return fmt.Errorf("install-config of cluster %s: %w", id, err)
	}
	if !strings.HasSuffix(ic, "\n") {
		ic += "\n"
	}
	return a.say("%s", ic)
}

// getManifests is "get manifests CLUSTER".
func (a *app) getManifests(ctx context.Context, args []string) error {
	c, id, err := a.clusterArg(ctx, "get manifests", args, nil)
	if err != nil {
		return err
	}
	ms, err := c.ListManifests(ctx, id)
	if err != nil {
		return fmt.Errorf("manifests of cluster %s: %w", id, err)
	}
	if len(ms) == 0 {
		_, err := a.env.Stderr.Write([]byte("No manifests found.\n"))
		return err
	}
	t := output.Table{Header: []string{"FOLDER", "FILE"}}
	for _, m := range ms {
		t.Rows = append(t.Rows, []string{m.Folder, m.FileName})
	}
	return output.Write(a.env.Stdout, output.FormatTable, nil, t)
}

// createManifest is "create manifest --cluster C --file F [--folder D] [--name N]".
func (a *app) createManifest(ctx context.Context, args []string) error {
	var cluster, file, name string
	p := client.CreateManifestParams{}
	fs := a.flagSet("create manifest")
	fs.StringVar(&cluster, "cluster", "", "cluster `ID` or name (required)")
	fs.StringVar(&file, "file", "", "the manifest `file`, YAML or JSON (required)")
	fs.StringVar(&p.Folder, "folder", "manifests", "manifests or openshift")
	fs.StringVar(&name, "name", "", "file `name` on the cluster (default: the file's base name)")
	pos, err := a.parse(fs, args, "create manifest --cluster C --file F [--folder manifests|openshift] [--name N]")
	if err != nil {
		return err
	}
	if err := exactArgs("create manifest", pos, 0, "no arguments, only flags"); err != nil {
		return err
	}
	if cluster == "" || file == "" {
		return usageError("create manifest needs --cluster and --file")
	}
	content, err := a.readFile(file, "manifest")
	if err != nil {
		return err
	}
	p.FileName, p.Content = name, base64.StdEncoding.EncodeToString([]byte(content+"\n"))
	if p.FileName == "" {
		p.FileName = filepath.Base(file)
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	id, err := a.clusterID(ctx, c, cluster)
	if err != nil {
		return err
	}
	m, err := c.CreateManifest(ctx, id, p)
	if err != nil {
		return fmt.Errorf("creating manifest %s: %w", p.FileName, err)
	}
	return a.say("manifest/%s/%s created\n", m.Folder, m.FileName)
}

// patchCluster is "patch cluster CLUSTER --install-config-overrides-file F"
// (or --clear-install-config-overrides).
func (a *app) patchCluster(ctx context.Context, args []string) error {
	var file string
	var clear bool
	c, id, err := a.clusterArg(ctx, "patch cluster", args, func(fs flagSet) {
		fs.StringVar(&file, "install-config-overrides-file", "", "`file` with a JSON object merged over the generated install-config")
		fs.BoolVar(&clear, "clear-install-config-overrides", false, "remove the install-config overrides")
	})
	if err != nil {
		return err
	}
	if (file == "") == !clear {
		return usageError("patch cluster takes --install-config-overrides-file or --clear-install-config-overrides")
	}
	doc := ""
	if file != "" {
		if doc, err = a.readFile(file, "install-config overrides"); err != nil {
			return err
		}
	}
	if err := c.UpdateInstallConfig(ctx, id, doc); err != nil {
		return fmt.Errorf("patching the install-config of cluster %s: %w", id, err)
	}
	return a.say("cluster/%s patched\n", id)
}
