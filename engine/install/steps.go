package install

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/rackboot/rackboot/boot/installer"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// Status infos the controller sets.
const (
	infoPrepared       = "Host finished successfully to prepare for installation"
	infoHostInstalling = "Host is installing"
	infoClusterInstall = "Installation in progress"
	infoFinalizing     = "Finalizing cluster installation"
	infoInstalled      = "Cluster is installed"
	infoPendingUser    = "Cluster has hosts pending user action"
	infoPrepareFailed  = "Failed to prepare the installation"
	infoHostPrepFailed = "Host failed to prepare for installation"
)

// startPrepare prepares cl in a goroutine of its own unless one already
// does; the controller's passes go on meanwhile.
func (c *Controller) startPrepare(ctx context.Context, cl engine.Cluster) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.preparing[cl.ID] {
		return
	}
	c.preparing[cl.ID] = true
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer func() {
			c.mu.Lock()
			delete(c.preparing, cl.ID)
			c.mu.Unlock()
		}()
		if err := c.prepare(ctx, cl); err != nil && ctx.Err() == nil {
			c.log.WarnContext(ctx, "install controller", "cluster", cl.ID, "err", err)
		}
	}()
}

// prepare generates cl's artifacts (within PrepareTimeout), stores them
// and starts the hosts.
func (c *Controller) prepare(ctx context.Context, cl engine.Cluster) error {
	var (
		is  engine.ImageSet
		in  installer.Cluster
		err error
	)
	c.o.Store.Read(func(m *engine.Model) {
		var ok bool
		if is, ok = m.ClusterImageSet(cl); !ok {
			err = fmt.Errorf("%w: cluster %s has no image set", ErrPrepare, cl.ID)
			return
		}
		in, err = Cluster(m, cl)
	})
	if err == nil {
		err = c.generateWithin(ctx, cl, is, in)
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err() // no longer leading: the next leader prepares
		}
		return c.prepareFailed(ctx, cl, err)
	}
	return c.startHosts(ctx, cl)
}

// generateWithin is generate bounded by PrepareTimeout.
func (c *Controller) generateWithin(ctx context.Context, cl engine.Cluster, is engine.ImageSet, in installer.Cluster) error {
	gctx, cancel := context.WithTimeout(ctx, c.o.PrepareTimeout)
	defer cancel()
	err := c.generate(gctx, cl, is, in)
	if err != nil && ctx.Err() == nil && errors.Is(gctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%w: timed out after %s", ErrPrepare, c.o.PrepareTimeout)
	}
	return err
}

// generate runs the image set's generator and stores the artifacts.
func (c *Controller) generate(ctx context.Context, cl engine.Cluster, is engine.ImageSet, in installer.Cluster) error {
	gen, err := c.o.Generators(is)
	if err != nil {
		return err
	}
	c.log.InfoContext(ctx, "generating install artifacts", "cluster", cl.ID, "image_set", is.Name, "generator", is.Generator)
	a, err := gen.Generate(ctx, in)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrPrepare, err)
	}
	if _, err := c.o.Store.Apply(ctx, &engine.PutSecret{Secret: artifactSecret(cl.ID, a)}); err != nil {
		return fmt.Errorf("store install artifacts: %w", err)
	}
	c.event(ctx, engine.Event{Name: "cluster_install_artifacts_generated", Severity: "info", ClusterID: cl.ID,
		Message: fmt.Sprintf("Generated the installation configs of the cluster with %s", generatorName(is))})
	return nil
}

func generatorName(is engine.ImageSet) string {
	if is.Generator == "" {
		return engine.GeneratorUserConfigs
	}
	return is.Generator
}

// prepareFailed puts cl in error and its preparing hosts in
// preparing-failed.
func (c *Controller) prepareFailed(ctx context.Context, cl engine.Cluster, cause error) error {
	info := fmt.Sprintf("%s: %v", infoPrepareFailed, cause)
	hosts, changes := c.hostMoves(cl.ID, []string{models.HostStatusPreparingForInstallation},
		models.HostStatusPreparingFailed, infoHostPrepFailed)
	ok, err := c.apply(ctx, &engine.InstallTransition{ClusterID: cl.ID,
		Cluster: &engine.StatusChange{Status: engine.ClusterStatusError, Info: info,
			From: []string{engine.ClusterStatusPreparingForInstallation}}, Hosts: changes})
	if !ok {
		return err
	}
	c.log.ErrorContext(ctx, "installation preparation failed", "cluster", cl.ID, "err", cause)
	c.clusterEvent(ctx, cl.ID, engine.ClusterStatusError, info)
	c.hostEvents(ctx, cl.ID, hosts, changes)
	return nil
}

// startHosts moves the prepared hosts through preparing-successful to
// installing and the cluster to installing.
func (c *Controller) startHosts(ctx context.Context, cl engine.Cluster) error {
	hosts, prepared := c.hostMoves(cl.ID, []string{models.HostStatusPreparingForInstallation},
		models.HostStatusPreparingSuccessful, infoPrepared)
	if ok, err := c.apply(ctx, &engine.InstallTransition{ClusterID: cl.ID, Hosts: prepared,
		Cluster: &engine.StatusChange{Status: cl.Status, Info: cl.StatusInfo, From: []string{cl.Status}}}); !ok {
		return err
	}
	c.hostEvents(ctx, cl.ID, hosts, prepared)
	hosts, installing := c.hostMoves(cl.ID, []string{models.HostStatusPreparingSuccessful},
		models.HostStatusInstalling, infoHostInstalling)
	ok, err := c.apply(ctx, &engine.InstallTransition{ClusterID: cl.ID, Hosts: installing,
		Cluster: &engine.StatusChange{Status: engine.ClusterStatusInstalling, Info: infoClusterInstall,
			From: []string{engine.ClusterStatusPreparingForInstallation}}})
	if !ok {
		return err
	}
	c.clusterEvent(ctx, cl.ID, engine.ClusterStatusInstalling, infoClusterInstall)
	c.hostEvents(ctx, cl.ID, hosts, installing)
	return nil
}

// hostMoves lists the hosts of cluster id (as they are now) and a change
// to status for each whose status is one of from.
func (c *Controller) hostMoves(id string, from []string, status, info string) ([]engine.Host, []engine.HostChange) {
	var (
		hosts   []engine.Host
		changes []engine.HostChange
	)
	c.o.Store.Read(func(m *engine.Model) {
		for h := range m.HostsOfCluster(id) {
			hosts = append(hosts, h)
			if slices.Contains(from, h.Status) {
				changes = append(changes, engine.HostChange{ID: h.ID, Status: status, Info: info, From: []string{h.Status}})
			}
		}
	})
	return hosts, changes
}

// watchHosts moves an installing cluster to finalizing once every host is
// installed, and in and out of installing-pending-user-action with its
// hosts.
func (c *Controller) watchHosts(ctx context.Context, cl engine.Cluster, hosts []engine.Host) error {
	installed, pending := 0, false
	for _, h := range hosts {
		switch h.Status {
		case models.HostStatusInstalled:
			installed++
		case models.HostStatusInstallingPendingUserAction:
			pending = true
		case models.HostStatusError:
			return c.hostFailed(ctx, cl, hosts, h)
		}
	}
	next, info := engine.ClusterStatusInstalling, infoClusterInstall
	switch {
	case installed == len(hosts) && len(hosts) > 0:
		next, info = engine.ClusterStatusFinalizing, infoFinalizing
	case pending:
		next, info = engine.ClusterStatusInstallingPendingUserAction, infoPendingUser
	}
	if next == cl.Status {
		return nil
	}
	ok, err := c.apply(ctx, &engine.InstallTransition{ClusterID: cl.ID,
		Cluster: &engine.StatusChange{Status: next, Info: info, From: []string{cl.Status}}})
	if ok {
		c.clusterEvent(ctx, cl.ID, next, info)
	}
	return err
}

// finalize completes a finalizing cluster.
func (c *Controller) finalize(ctx context.Context, cl engine.Cluster) error {
	ok, err := c.apply(ctx, &engine.InstallTransition{ClusterID: cl.ID,
		Cluster: &engine.StatusChange{Status: engine.ClusterStatusInstalled, Info: infoInstalled,
			From: []string{engine.ClusterStatusFinalizing}, Completed: true}})
	if ok {
		c.log.InfoContext(ctx, "cluster installed", "cluster", cl.ID)
		c.clusterEvent(ctx, cl.ID, engine.ClusterStatusInstalled, infoInstalled)
		c.event(ctx, engine.Event{Name: "cluster_installation_completed", Severity: "info", ClusterID: cl.ID,
			Message: "Successfully completed installing cluster " + cl.Name})
	}
	return err
}

// timeout puts an installation that took too long in error, with its hosts
// that are not installed.
func (c *Controller) timeout(ctx context.Context, cl engine.Cluster, hosts []engine.Host) error {
	info := fmt.Sprintf("Timeout while waiting for cluster installation to finish (%s)", c.o.Timeout)
	var changes []engine.HostChange
	for _, h := range hosts {
		if slices.Contains(engine.HostInstalling(), h.Status) {
			changes = append(changes, engine.HostChange{ID: h.ID, Status: models.HostStatusError, From: []string{h.Status},
				Info: fmt.Sprintf("Host failed to install: the installation timed out after %s at stage %q", c.o.Timeout,
					h.Progress.CurrentStage)})
		}
	}
	ok, err := c.apply(ctx, &engine.InstallTransition{ClusterID: cl.ID, Hosts: changes,
		Cluster: &engine.StatusChange{Status: engine.ClusterStatusError, Info: info, From: []string{cl.Status}}})
	if !ok {
		return err
	}
	c.log.WarnContext(ctx, "installation timed out", "cluster", cl.ID, "timeout", c.o.Timeout)
	c.clusterEvent(ctx, cl.ID, engine.ClusterStatusError, info)
	c.hostEvents(ctx, cl.ID, hosts, changes)
	return nil
}

// hostFailed puts cl in error because failed is, with the cluster's other
// unfinished hosts.
func (c *Controller) hostFailed(ctx context.Context, cl engine.Cluster, hosts []engine.Host, failed engine.Host) error {
	info := fmt.Sprintf("Host %s failed: %s", name(failed), failed.StatusInfo)
	var changes []engine.HostChange
	for _, h := range hosts {
		if slices.Contains(engine.HostInstalling(), h.Status) {
			changes = append(changes, engine.HostChange{ID: h.ID, Status: models.HostStatusError, From: []string{h.Status},
				Info: "Installation of the cluster failed"})
		}
	}
	ok, err := c.apply(ctx, &engine.InstallTransition{ClusterID: cl.ID, Hosts: changes,
		Cluster: &engine.StatusChange{Status: engine.ClusterStatusError, Info: info, From: []string{cl.Status}}})
	if !ok {
		return err
	}
	c.clusterEvent(ctx, cl.ID, engine.ClusterStatusError, info)
	c.hostEvents(ctx, cl.ID, hosts, changes)
	return nil
}
