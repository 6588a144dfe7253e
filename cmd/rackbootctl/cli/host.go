package cli

import (
	"context"
	"fmt"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/cmd/rackbootctl/output"
)

// hostCmd parses "<verb> host ID [flags]" with extra flags from add, and
// returns the client and the host (found in --infra-env or by search).
//
// check, when set, validates the flags before anything is asked.
func (a *app) hostCmd(ctx context.Context, verb string, args []string, add func(fs flagSet), check func() error) (*client.Client, *client.Host, error) {
	_, args, err := splitResource(verb, args, resHost)
	if err != nil {
		return nil, nil, err
	}
	var infraEnv string
	fs := a.flagSet(verb + " host")
	fs.StringVar(&infraEnv, "infra-env", "", "the host's infra-env `ID` (default: search them all)")
	if add != nil {
		add(fs)
	}
	pos, err := a.parse(fs, args, verb+" host ID [flags]")
	if err != nil {
		return nil, nil, err
	}
	if err := exactArgs(verb+" host", pos, 1, "one host ID"); err != nil {
		return nil, nil, err
	}
	if check != nil {
		if err := check(); err != nil {
			return nil, nil, err
		}
	}
	c, err := a.client()
	if err != nil {
		return nil, nil, err
	}
	if infraEnv, err = a.infraEnvID(ctx, c, infraEnv); err != nil {
		return nil, nil, err
	}
	h, err := a.findHost(ctx, c, pos[0], infraEnv)
	if err != nil {
		return nil, nil, fmt.Errorf("host %s: %w", pos[0], err)
	}
	return c, h, nil
}

func (a *app) describe(ctx context.Context, args []string) error {
	res, rest, err := splitResource("describe", args, resHost, resCluster, resInfraEnv)
	if err != nil {
		return err
	}
	switch res {
	case resCluster:
		return a.describeCluster(ctx, rest)
	case resInfraEnv:
		return a.describeInfraEnv(ctx, rest)
	}
	_, h, err := a.hostCmd(ctx, "describe", args, nil, nil)
	if err != nil {
		return err
	}
	return output.DescribeHost(a.env.Stdout, h)
}

func (a *app) describeCluster(ctx context.Context, args []string) error {
	pos, err := a.parse(a.flagSet("describe cluster"), args, "describe cluster ID")
	if err != nil {
		return err
	}
	if err := exactArgs("describe cluster", pos, 1, "one cluster ID"); err != nil {
		return err
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	id, err := a.clusterID(ctx, c, pos[0])
	if err != nil {
		return err
	}
	cl, err := c.GetCluster(ctx, id)
	if err != nil {
		return fmt.Errorf("cluster %s: %w", pos[0], err)
	}
	return output.DescribeCluster(a.env.Stdout, cl)
}

func (a *app) approve(ctx context.Context, args []string) error {
	c, h, err := a.hostCmd(ctx, "approve", args, nil, nil)
	if err != nil {
		return err
	}
	yes := true
	if _, err := c.UpdateHost(ctx, h.InfraEnvID, h.ID, client.HostUpdateParams{Approved: &yes}); err != nil {
		return fmt.Errorf("approving host %s: %w", h.ID, err)
	}
	return a.say("host/%s approved\n", h.ID)
}

func (a *app) patch(ctx context.Context, args []string) error {
	res, rest, err := splitResource("patch", args, resHost, resInfraEnv, resCluster)
	if err != nil {
		return err
	}
	switch res {
	case resInfraEnv:
		return a.patchInfraEnv(ctx, rest)
	case resCluster:
		return a.patchCluster(ctx, rest)
	}
	return a.patchHost(ctx, args)
}

func (a *app) patchHost(ctx context.Context, args []string) error {
	var role, hostname, disk, override string
	var clearOverride bool
	c, h, err := a.hostCmd(ctx, "patch", args, func(fs flagSet) {
		fs.StringVar(&role, "role", "", "host `role`: master, worker or auto-assign")
		fs.StringVar(&hostname, "hostname", "", "requested `hostname`")
		fs.StringVar(&disk, "installation-disk", "", "installation disk `ID` (from the inventory, e.g. /dev/disk/by-path/…)")
		fs.StringVar(&override, "ignition-override-file", "", "`file` with an Ignition config merged into the host's install Ignition")
		fs.BoolVar(&clearOverride, "clear-ignition-override", false, "remove the host's Ignition override")
	}, func() error {
		if override != "" && clearOverride {
			return usageError("patch host: --ignition-override-file and --clear-ignition-override contradict each other")
		}
		if role == "" && hostname == "" && disk == "" && override == "" && !clearOverride {
			return usageError("patch host: nothing to change (give --role, --hostname, --installation-disk or --ignition-override-file)")
		}
		return nil
	})
	if err != nil {
		return err
	}
	var p client.HostUpdateParams
	if role != "" {
		p.HostRole = &role
	}
	if hostname != "" {
		p.HostName = &hostname
	}
	if disk != "" {
		p.DisksSelectedConfig = []client.DiskConfig{{ID: &disk, Role: "install"}}
	}
	if override != "" || clearOverride {
		text := ""
		if override != "" {
			if text, err = a.readFile(override, "Ignition override"); err != nil {
				return err
			}
		}
		p.IgnitionConfigOverrides = &text
	}
	if _, err := c.UpdateHost(ctx, h.InfraEnvID, h.ID, p); err != nil {
		return fmt.Errorf("patching host %s: %w", h.ID, err)
	}
	return a.say("host/%s patched\n", h.ID)
}

func (a *app) bind(ctx context.Context, args []string) error {
	var cluster string
	c, h, err := a.hostCmd(ctx, "bind", args, func(fs flagSet) {
		fs.StringVar(&cluster, "cluster", "", "cluster `ID` to bind to (required)")
	}, func() error {
		if cluster == "" {
			return usageError("bind host needs --cluster")
		}
		return nil
	})
	if err != nil {
		return err
	}
	if cluster, err = a.clusterID(ctx, c, cluster); err != nil {
		return err
	}
	if _, err := c.BindHost(ctx, h.InfraEnvID, h.ID, cluster); err != nil {
		return fmt.Errorf("binding host %s: %w", h.ID, err)
	}
	return a.say("host/%s bound to cluster/%s\n", h.ID, cluster)
}

func (a *app) unbind(ctx context.Context, args []string) error {
	c, h, err := a.hostCmd(ctx, "unbind", args, nil, nil)
	if err != nil {
		return err
	}
	if _, err := c.UnbindHost(ctx, h.InfraEnvID, h.ID); err != nil {
		return fmt.Errorf("unbinding host %s: %w", h.ID, err)
	}
	return a.say("host/%s unbound\n", h.ID)
}

func (a *app) delete(ctx context.Context, args []string) error {
	res, rest, err := splitResource("delete", args, resCluster, resInfraEnv, resHost)
	if err != nil {
		return err
	}
	if res == resHost {
		c, h, err := a.hostCmd(ctx, "delete", args, nil, nil)
		if err != nil {
			return err
		}
		if err := c.DeleteHost(ctx, h.InfraEnvID, h.ID); err != nil {
			return fmt.Errorf("deleting host %s: %w", h.ID, err)
		}
		return a.say("host/%s deleted\n", h.ID)
	}
	pos, err := a.parse(a.flagSet("delete "+res), rest, "delete "+res+" ID")
	if err != nil {
		return err
	}
	if err := exactArgs("delete "+res, pos, 1, "one ID"); err != nil {
		return err
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	del := c.DeleteCluster
	if res == resInfraEnv {
		del = c.DeleteInfraEnv
	}
	id, err := a.idOf(ctx, c, res, pos[0])
	if err != nil {
		return err
	}
	if err := del(ctx, id); err != nil {
		return fmt.Errorf("deleting %s %s: %w", res, pos[0], err)
	}
	return a.say("%s/%s deleted\n", res, id)
}

func (a *app) say(format string, args ...any) error {
	_, err := fmt.Fprintf(a.env.Stdout, format, args...)
	return err
}

func (a *app) describeInfraEnv(ctx context.Context, args []string) error {
	c, id, ref, err := a.infraEnvArg(ctx, "describe infra-env", "ID|NAME", "one infra-env ID or name", args)
	if err != nil {
		return err
	}
	e, err := c.GetInfraEnv(ctx, id)
	if err != nil {
		return fmt.Errorf("infra-env %s: %w", ref, err)
	}
	hs, err := c.ListHosts(ctx, id)
	if err != nil {
		return fmt.Errorf("infra-env %s: %w", ref, err)
	}
	return output.DescribeInfraEnv(a.env.Stdout, e, hs)
}
