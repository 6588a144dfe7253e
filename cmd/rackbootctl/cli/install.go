package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/cmd/rackbootctl/output"
)

// Sentinel errors of the installation verbs.
var (
	ErrNoCluster     = errors.New("cluster not found")
	ErrInstallFailed = errors.New("installation failed")
)

// refusedError is a 409 of install: the server's answer and the
// validations that stop the cluster, one per line.
type refusedError struct {
	cluster string
	status  string // the cluster's status, when known
	err     error
	failing string // the table of failing validations, or ""
}

// Error is the server's reason, or, when the failing validations are
// listed (the reason would repeat them), the cluster's status.
func (e *refusedError) Error() string {
	if e.failing == "" || e.status == "" {
		return fmt.Sprintf("cluster %s is not ready to install: %v", e.cluster, e.err)
	}
	code := ""
	var ae *client.APIError
	if errors.As(e.err, &ae) {
		code = fmt.Sprintf(" (HTTP %d)", ae.Status)
	}
	return fmt.Sprintf("cluster %s is %s, not ready to install%s; failing validations:\n%s", e.cluster, e.status, code, e.failing)
}

func (e *refusedError) Unwrap() error { return e.err }

// clusterAction runs a cluster verb: "<verb> CLUSTER" (ID or name).
func (a *app) clusterArg(ctx context.Context, verb string, args []string, add func(fs flagSet)) (*client.Client, string, error) {
	fs := a.flagSet(verb)
	if add != nil {
		add(fs)
	}
	pos, err := a.parse(fs, args, verb+" CLUSTER [flags]")
	if err != nil {
		return nil, "", err
	}
	if err := exactArgs(verb, pos, 1, "one cluster ID or name"); err != nil {
		return nil, "", err
	}
	c, err := a.client()
	if err != nil {
		return nil, "", err
	}
	id, err := a.clusterID(ctx, c, pos[0])
	if err != nil {
		return nil, "", err
	}
	return c, id, nil
}

// clusterID is ref when it looks like an ID, else the ID of the one
// cluster named ref.
func (a *app) clusterID(ctx context.Context, c *client.Client, ref string) (string, error) {
	if looksLikeID(ref) {
		return ref, nil
	}
	cs, err := c.ListClusters(ctx)
	if err != nil {
		return "", err
	}
	var ids []string
	for _, cl := range cs {
		if cl.Name == ref {
			ids = append(ids, cl.ID)
		}
	}
	switch len(ids) {
	case 1:
		return ids[0], nil
	case 0:
		return "", fmt.Errorf("%w: no cluster has the ID or name %q", ErrNoCluster, ref)
	}
	return "", fmt.Errorf("%w: %d clusters are called %q (%s): use the ID", ErrNoCluster, len(ids), ref, strings.Join(ids, ", "))
}

// install is "install CLUSTER [-w]" and, for day 2, "install host ID".
func (a *app) install(ctx context.Context, args []string) error {
	if len(args) > 0 {
		if res, ok := resourceOf(args[0]); ok && res == resHost {
			return a.installHost(ctx, args)
		}
	}
	var o followOpts
	c, id, err := a.clusterArg(ctx, "install", args, o.register)
	if err != nil {
		return err
	}
	if o.watch && o.interval < 100*time.Millisecond {
		return usageError("--interval must be at least 100ms")
	}
	cl, err := c.InstallCluster(ctx, id)
	if errors.Is(err, client.ErrConflict) {
		return a.refused(ctx, c, id, err)
	}
	if err != nil {
		return fmt.Errorf("installing cluster %s: %w", id, err)
	}
	if err := a.say("cluster/%s %s\n", cl.ID, firstNonEmpty(cl.Status, "installing")); err != nil || !o.watch {
		return err
	}
	return a.follow(ctx, c, id, o)
}

// refused explains a 409 of install with the validations that fail.
func (a *app) refused(ctx context.Context, c *client.Client, id string, err error) error {
	e := &refusedError{cluster: id, err: err}
	cl, gerr := c.GetCluster(ctx, id)
	if gerr != nil {
		cl = &client.Cluster{ID: id}
	}
	if cl.Name != "" {
		e.cluster = cl.Name + " (" + id + ")"
	}
	e.status = cl.Status
	var ae *client.APIError
	var vs []client.FailingValidation
	if errors.As(err, &ae) {
		vs = ae.Validations
	}
	t := output.FailingValidations(cl, vs)
	if len(t.Rows) == 0 {
		return e
	}
	var b strings.Builder
	if output.NewPrinter(&b).Print(t, true) == nil {
		e.failing = strings.TrimSuffix(b.String(), "\n")
	}
	return e
}

func (a *app) installHost(ctx context.Context, args []string) error {
	c, h, err := a.hostCmd(ctx, "install", args, nil, nil)
	if err != nil {
		return err
	}
	got, err := c.InstallHost(ctx, h.InfraEnvID, h.ID)
	if err != nil {
		return fmt.Errorf("installing host %s: %w", h.ID, err)
	}
	return a.say("host/%s %s\n", h.ID, firstNonEmpty(got.Status, "installing"))
}

func (a *app) cancel(ctx context.Context, args []string) error {
	c, id, err := a.clusterArg(ctx, "cancel", args, nil)
	if err != nil {
		return err
	}
	cl, err := c.CancelInstallation(ctx, id)
	if err != nil {
		return fmt.Errorf("cancelling the installation of cluster %s: %w", id, err)
	}
	return a.say("cluster/%s %s\n", id, firstNonEmpty(cl.Status, "cancelled"))
}

func (a *app) reset(ctx context.Context, args []string) error {
	c, id, err := a.clusterArg(ctx, "reset", args, nil)
	if err != nil {
		return err
	}
	cl, err := c.ResetCluster(ctx, id)
	if err != nil {
		return fmt.Errorf("resetting cluster %s: %w", id, err)
	}
	return a.say("cluster/%s %s\n", id, firstNonEmpty(cl.Status, "reset"))
}

func (a *app) allowAddWorkers(ctx context.Context, args []string) error {
	c, id, err := a.clusterArg(ctx, "allow-add-workers", args, nil)
	if err != nil {
		return err
	}
	cl, err := c.AllowAddWorkers(ctx, id)
	if err != nil {
		return fmt.Errorf("opening cluster %s to day-2 workers: %w", id, err)
	}
	return a.say("cluster/%s %s\n", id, firstNonEmpty(cl.Status, "adding-hosts"))
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
