package cli

import (
	"context"
	"log/slog"
	"strings"

	"github.com/rackboot/rackboot/cmd/rackbootctl/kube"
)

// kubeClient returns the client of the Kubernetes-compatible API (the
// same server and admin token as the REST API).
func (a *app) kubeClient() (*kube.Client, error) {
	url, err := a.serverURL()
	if err != nil {
		return nil, err
	}
	tok, err := a.findToken()
	if err != nil {
		return nil, err
	}
	cfg := kube.Config{URL: url, Token: tok, HTTP: a.env.HTTP, UserAgent: "rackbootctl/" + a.env.Version}
	if a.g.verbose {
		cfg.Log = slog.New(slog.NewTextHandler(a.env.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	c, err := kube.New(cfg)
	if err != nil {
		return nil, usageError("%v", err)
	}
	return c, nil
}

// isREST reports whether word names what the REST verbs serve: the
// engine's clusters, infra-envs, hosts and events, BareMetalHosts and a
// cluster's install-config and manifests.
func isREST(word string) bool {
	if _, ok := resourceOf(word); ok || isBMH(word) {
		return true
	}
	switch word {
	case "install-config", "manifest", "manifests":
		return true
	}
	return false
}

// hasFileFlag reports whether args give -f (delete -f goes to the kube
// API).
func hasFileFlag(args []string) bool {
	for _, s := range args {
		if s == "-f" || s == "--f" || s == "--filename" || strings.HasPrefix(s, "-f=") ||
			strings.HasPrefix(s, "--f=") || strings.HasPrefix(s, "--filename=") {
			return true
		}
	}
	return false
}

// kubeOr sends get, describe and delete of the kinds of the
// Kubernetes-compatible API (agents, infraenv, aci, kind/name, ...) and
// delete -f to it, and the REST resources to next.
func (a *app) kubeOr(verb string, next command) command {
	return func(ctx context.Context, args []string) error {
		if verb == "delete" && hasFileFlag(args) {
			return a.deleteFiles(ctx, args)
		}
		word := firstWord(args)
		if word == "" || isREST(word) {
			return next(ctx, args)
		}
		switch verb {
		case "get":
			return a.kubeGet(ctx, args)
		case "describe":
			return a.kubeDescribe(ctx, args)
		}
		return a.kubeDelete(ctx, args)
	}
}

// firstWord is the first argument that is no flag, skipping the values
// of the kube verbs' flags (get -n kni21 agents, as kubectl allows).
func firstWord(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			return a
		}
		switch strings.TrimLeft(a, "-") {
		case "n", "namespace", "l", "selector", "o":
			i++ // its value follows
		}
	}
	return ""
}
