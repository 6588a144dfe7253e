package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/cmd/rackbootctl/output"
	"github.com/rackboot/rackboot/engine/models"
)

// Cluster states where an installation has ended.
const (
	clusterInstalled = "installed"
	clusterError     = "error"
	clusterCancelled = "cancelled"
)

// followOpts are the flags of install -w.
type followOpts struct {
	watch    bool
	interval time.Duration
}

func (o *followOpts) register(fs flagSet) {
	fs.BoolVar(&o.watch, "w", false, "follow the installation: a progress bar per host until the cluster is installed (exit 0) or fails (exit 1)")
	fs.DurationVar(&o.interval, "interval", time.Second, "how often -w asks for the cluster and its hosts")
}

// follow shows the progress of cluster id's hosts until the cluster is
// installed, in error or cancelled. It polls: one cluster and one host
// list per interval.
func (a *app) follow(ctx context.Context, c *client.Client, id string, o followOpts) error {
	header := output.Progress(nil).Header
	live := isTerminal(a.env.Stdout)
	var out sink = &tableSink{p: output.NewPrinter(a.env.Stdout), header: header}
	var ls *liveSink
	if live {
		ls = newLiveSink(a.env.Stdout)
		out = ls
	}
	tr := newTracker(out, header, output.FormatProgress)
	t := time.NewTicker(o.interval)
	defer t.Stop()
	status := ""
	for {
		cl, err := c.GetCluster(ctx, id)
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil && isAnswer(err):
			return err
		case err != nil:
			fmt.Fprintf(a.env.Stderr, "warning: %v (retrying)\n", err)
		default:
			if err := a.showCluster(ctx, c, cl, tr, ls, &status); err != nil {
				return err
			}
			if done, err := a.ended(cl); done {
				return err
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// showCluster prints what changed: the cluster's status (a line, or the
// live block's title) and its hosts' rows.
func (a *app) showCluster(ctx context.Context, c *client.Client, cl *client.Cluster, tr *tracker, ls *liveSink, status *string) error {
	hs := cl.Hosts
	if len(hs) == 0 { // a server that does not embed the hosts
		all, err := a.hosts(ctx, c, "", getOpts{cluster: cl.ID})
		if err != nil && isAnswer(err) {
			return err
		}
		hs = all
	}
	line := clusterLine(cl, a.env.Now())
	if ls != nil {
		ls.title = line
	} else if line != *status {
		if err := a.say("%s\n", line); err != nil {
			return err
		}
	}
	*status = line
	tab := output.Progress(hs)
	return tr.sync(tab, items(hs))
}

// clusterLine is "cluster NAME: STATUS (INFO), N%".
func clusterLine(cl *client.Cluster, now time.Time) string {
	s := fmt.Sprintf("cluster %s: %s", firstNonEmpty(cl.Name, cl.ID), cl.Status)
	if cl.StatusInfo != "" {
		s += " — " + cl.StatusInfo
	}
	if cl.Progress != nil && cl.Progress.TotalPercentage > 0 {
		s += fmt.Sprintf(" [%d%%]", cl.Progress.TotalPercentage)
	}
	if d := output.InstallTime(cl, now); d != "" {
		s += " in " + d
	}
	return s
}

// ended reports whether the installation of cl is over, with the error
// of a failed one.
func (a *app) ended(cl *client.Cluster) (bool, error) {
	switch cl.Status {
	case clusterInstalled:
		return true, nil
	case clusterError, clusterCancelled:
		return true, fmt.Errorf("%w: cluster %s is %s: %s%s", ErrInstallFailed, firstNonEmpty(cl.Name, cl.ID),
			cl.Status, cl.StatusInfo, failedHosts(cl.Hosts))
	}
	return false, nil
}

// failedHosts lists the hosts whose stage is Failed, with the reason.
func failedHosts(hs []*client.Host) string {
	s := ""
	for _, h := range hs {
		if h.Progress != nil && h.Progress.CurrentStage == models.HostStageFailed {
			s += fmt.Sprintf("\n  host %s: %s", firstNonEmpty(output.Hostname(h), h.ID), h.Progress.ProgressInfo)
		}
	}
	return s
}
