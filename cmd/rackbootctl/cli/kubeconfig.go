package cli

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rackboot/rackboot/apitls"
	"github.com/rackboot/rackboot/cluster/rackca"
)

// kubeconfig prints a kubeconfig for rackbootd's Kubernetes-compatible API
// (the same listener as the REST API, which speaks HTTPS too): the server
// URL made https, the CA (--ca-file, else the API certificate api.crt
// next to the admin token file) and the admin token. kubectl sends a
// token over TLS only.
func (a *app) kubeconfig(_ context.Context, args []string) error {
	var caFile, name string
	fs := a.flagSet("kubeconfig")
	fs.StringVar(&caFile, "ca-file", "", "PEM `file` of the CA that signed rackbootd's certificate (https URLs)")
	fs.StringVar(&name, "name", "rackboot", "the `name` of the cluster, user and context")
	pos, err := a.parse(fs, args, "kubeconfig [--ca-file FILE] [--name NAME]")
	if err != nil {
		return err
	}
	if err := exactArgs("kubeconfig", pos, 0, "no arguments"); err != nil {
		return err
	}
	url, err := a.serverURL()
	if err != nil {
		return err
	}
	tok, err := a.findToken()
	if err != nil {
		return err
	}
	serverName := ""
	if caFile == "" {
		c, err := a.loadConfig()
		if err != nil {
			return err
		}
		dir := filepath.Dir(a.tokenPath(c))
		caFile = filepath.Join(dir, apitls.CertFile)
		// In a rack: the rack CA and the name of the rack certificate
		// every appliance serves, so the kubeconfig works against each.
		if rack := filepath.Join(dir, apitls.RackCAFile); isFile(rack) {
			caFile, serverName = rack, rackca.APIServerName
		}
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return fmt.Errorf("kubeconfig: the API certificate: %w (give the CA with --ca-file)", err)
	}
	server := strings.TrimSuffix(url, "/")
	if rest, ok := strings.CutPrefix(server, "http://"); ok {
		server = "https://" + rest
	}
	cluster := map[string]any{"server": server, "certificate-authority-data": base64.StdEncoding.EncodeToString(pem)}
	if serverName != "" {
		cluster["tls-server-name"] = serverName
	}
	doc := map[string]any{
		"apiVersion":      "v1",
		"kind":            "Config",
		"clusters":        []any{map[string]any{"name": name, "cluster": cluster}},
		"users":           []any{map[string]any{"name": name, "user": map[string]any{"token": tok}}},
		"contexts":        []any{map[string]any{"name": name, "context": map[string]any{"cluster": name, "user": name}}},
		"current-context": name,
	}
	b, err := yaml.Marshal(doc)
	if err != nil {
		return err
	}
	_, err = a.env.Stdout.Write(b)
	return err
}

// isFile reports whether path is a regular file.
func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
