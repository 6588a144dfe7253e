package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
)

// ErrNoInfraEnv: an infra-env name matches no infra-env, or several.
var ErrNoInfraEnv = errors.New("infra-env not found")

// infraEnvID is ref when it has the shape of an ID, else the ID of the
// one infra-env called ref (several: an error listing their IDs).
func (a *app) infraEnvID(ctx context.Context, c *client.Client, ref string) (string, error) {
	if ref == "" || looksLikeID(ref) {
		return ref, nil
	}
	es, err := c.ListInfraEnvs(ctx)
	if err != nil {
		return "", err
	}
	var ids []string
	for _, e := range es {
		if e.Name == ref {
			ids = append(ids, e.ID)
		}
	}
	switch len(ids) {
	case 1:
		return ids[0], nil
	case 0:
		return "", fmt.Errorf("%w: no infra-env has the ID or name %q", ErrNoInfraEnv, ref)
	}
	return "", fmt.Errorf("%w: %d infra-envs are called %q (%s): use the ID", ErrNoInfraEnv, len(ids), ref, strings.Join(ids, ", "))
}

// infraEnvArg parses "<verb> ARG", a command with no flags whose one
// argument (shown as arg in its usage, described by names when missing) is
// an infra-env ID or name. It returns the client, the infra-env's ID and
// the argument as given, for messages.
func (a *app) infraEnvArg(ctx context.Context, verb, arg, names string, args []string) (*client.Client, string, string, error) {
	pos, err := a.parse(a.flagSet(verb), args, verb+" "+arg)
	if err != nil {
		return nil, "", "", err
	}
	if err := exactArgs(verb, pos, 1, names); err != nil {
		return nil, "", "", err
	}
	c, err := a.client()
	if err != nil {
		return nil, "", "", err
	}
	id, err := a.infraEnvID(ctx, c, pos[0])
	if err != nil {
		return nil, "", "", err
	}
	return c, id, pos[0], nil
}

// idOf resolves ref, a name or an ID of a resource of kind res (cluster
// or infra-env).
func (a *app) idOf(ctx context.Context, c *client.Client, res, ref string) (string, error) {
	switch {
	case ref == "":
		return "", nil
	case res == resCluster:
		return a.clusterID(ctx, c, ref)
	case res == resInfraEnv:
		return a.infraEnvID(ctx, c, ref)
	}
	return ref, nil
}

// resolveFilters turns the --infra-env, --cluster and --host names of
// get into IDs.
func (a *app) resolveFilters(ctx context.Context, c *client.Client, o *getOpts) error {
	var err error
	if o.infraEnv, err = a.infraEnvID(ctx, c, o.infraEnv); err != nil {
		return err
	}
	if o.cluster, err = a.idOf(ctx, c, resCluster, o.cluster); err != nil {
		return err
	}
	if o.host != "" {
		h, err := a.findHost(ctx, c, o.host, o.infraEnv)
		if err != nil {
			return err
		}
		o.host = h.ID
	}
	return nil
}
