package engine

import (
	"fmt"
	"slices"
	"time"

	"github.com/rackboot/rackboot/engine/models"
)

// Status infos of the installation (upstream's texts where it has them).
const (
	InfoClusterPreparing = "Preparing cluster for installation"
	InfoHostPreparing    = "Host is preparing for installation"
	InfoHostFailed       = "Host failed to install"
)

// StartInstall starts installing a ready cluster: the cluster and every
// host bound to it (all known, each given a master or worker role in
// Roles) move to preparing-for-installation, Bootstrap (a master) is
// marked as the bootstrap host, and the cluster's install clock starts.
type StartInstall struct {
	Stamp
	ClusterID string            `json:"cluster_id"`
	Roles     map[string]string `json:"roles"`
	Bootstrap string            `json:"bootstrap"`
}

// Type implements Command.
func (*StartInstall) Type() Type { return TypeStartInstall }

func (c *StartInstall) apply(tx *Tx) (any, error) {
	old, ok := tx.m.clusters[c.ClusterID]
	if !ok {
		return nil, notFound(KindCluster, c.ClusterID)
	}
	if old.Status != ClusterStatusReady {
		return nil, conflict("cluster %s is %q, not ready", c.ClusterID, old.Status)
	}
	if old.HoldInstallation {
		return nil, conflict("cluster %s holds its installation", c.ClusterID)
	}
	ids := tx.m.hostIdx.byCluster[c.ClusterID]
	if len(ids) == 0 {
		return nil, conflict("cluster %s has no hosts", c.ClusterID)
	}
	if err := c.check(tx, ids); err != nil {
		return nil, err
	}
	cl := *old
	cl.Status, cl.StatusInfo, cl.StatusUpdatedAt = ClusterStatusPreparingForInstallation, InfoClusterPreparing, tx.at
	cl.InstallStartedAt, cl.InstallCompletedAt = tx.at, time.Time{}
	put(tx, tx.m.clusters, KindCluster, cl.ID, &cl)
	for _, id := range ids {
		h := *tx.m.hosts[id]
		h.Role, h.Bootstrap, h.Day2 = c.Roles[id], id == c.Bootstrap, false
		h.Status, h.StatusInfo, h.StatusUpdatedAt = models.HostStatusPreparingForInstallation, InfoHostPreparing, tx.at
		h.Progress = Progress{}
		tx.putHost(&h)
	}
	return cl, nil
}

// check accepts known hosts with a master or worker role each, and a
// master as bootstrap.
func (c *StartInstall) check(tx *Tx, ids []string) error {
	for _, id := range ids {
		h := tx.m.hosts[id]
		if h.Status != models.HostStatusKnown {
			return conflict("host %s is %q, not known", id, h.Status)
		}
		switch models.HostRole(c.Roles[id]) {
		case models.HostRoleMaster, models.HostRoleWorker:
		default:
			return invalid("host %s: role %q is not master or worker", id, c.Roles[id])
		}
	}
	if !slices.Contains(ids, c.Bootstrap) || c.Roles[c.Bootstrap] != string(models.HostRoleMaster) {
		return invalid("bootstrap host %q is not a master of cluster %s", c.Bootstrap, c.ClusterID)
	}
	return nil
}

// InstallProgress records a stage a host reports. Stages only move
// forward (InstallStages order; the same stage again updates its info).
// The first stage moves an installing host to installing-in-progress;
// Done makes it installed, or, for a day-2 host, Rebooting makes it
// added-to-existing-cluster (upstream's rule). Failed puts the host in
// error with Info as the reason and, for a day-1 host, its cluster and
// the cluster's other installing hosts too. The result is a
// ProgressResult.
type InstallProgress struct {
	Stamp
	ID         string `json:"id"`
	InfraEnvID string `json:"infra_env_id,omitempty"`
	Stage      string `json:"stage"`
	Info       string `json:"info,omitempty"`
}

// ProgressResult is what InstallProgress did: the host after it and the
// stage and status before.
type ProgressResult struct {
	Host       Host
	PrevStage  string
	PrevStatus string
}

// Type implements Command.
func (*InstallProgress) Type() Type { return TypeInstallProgress }

// progressStatuses are the host statuses that take progress reports.
func progressStatuses() []string {
	return []string{models.HostStatusInstalling, models.HostStatusInstallingInProgress,
		models.HostStatusAddedToExistingCluster, models.HostStatusInstallingPendingUserAction}
}

func (c *InstallProgress) apply(tx *Tx) (any, error) {
	old, err := hostOf(tx, c.ID, c.InfraEnvID)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(progressStatuses(), old.Status) {
		return nil, conflict("host %s is %q and takes no installation progress", c.ID, old.Status)
	}
	res := ProgressResult{PrevStage: old.Progress.CurrentStage, PrevStatus: old.Status}
	if c.Stage == string(models.HostStageFailed) {
		res.Host = c.fail(tx, old)
		return res, nil
	}
	i, cur := StageIndex(c.Stage), StageIndex(old.Progress.CurrentStage)
	switch {
	case i < 0:
		return nil, invalid("%q is not an installation stage", c.Stage)
	case i < cur:
		return nil, invalid("host %s is at stage %q and cannot go back to %q", c.ID, old.Progress.CurrentStage, c.Stage)
	}
	h := *old
	if i != cur {
		h.Progress.StageStartedAt = tx.at
	}
	h.Progress.CurrentStage, h.Progress.ProgressInfo = c.Stage, c.Info
	h.Progress.InstallationPercentage, h.Progress.StageUpdatedAt = StagePercentage(c.Stage), tx.at
	st, info := progressStatus(h, c.Stage)
	if st != h.Status {
		h.Status, h.StatusInfo, h.StatusUpdatedAt = st, info, tx.at
	}
	tx.putHost(&h)
	res.Host = h
	return res, nil
}

// progressStatus is the host status a stage leads to.
func progressStatus(h Host, stage string) (string, string) {
	switch {
	case h.Day2 && PastRebooting(stage):
		return models.HostStatusAddedToExistingCluster, "Host has rebooted and no further updates will be posted. Please check console for progress and to possibly approve pending CSRs"
	case stage == string(models.HostStageDone):
		return models.HostStatusInstalled, "Done"
	case h.Status == models.HostStatusInstalling:
		return models.HostStatusInstallingInProgress, "Installation is in progress"
	}
	return h.Status, h.StatusInfo
}

// fail puts h in error; a day-1 host takes its installing cluster and
// that cluster's other installing hosts with it.
func (c *InstallProgress) fail(tx *Tx, old *Host) Host {
	h := *old
	reason := InfoHostFailed
	if c.Info != "" {
		reason += ": " + c.Info
	}
	h.Progress.CurrentStage, h.Progress.ProgressInfo, h.Progress.StageUpdatedAt = c.Stage, c.Info, tx.at
	h.Status, h.StatusInfo, h.StatusUpdatedAt = models.HostStatusError, reason, tx.at
	tx.putHost(&h)
	cl, ok := tx.m.clusters[h.ClusterID]
	if h.Day2 || !ok || !slices.Contains(ClusterInstalling(), cl.Status) {
		return h
	}
	nc := *cl
	nc.Status, nc.StatusInfo, nc.StatusUpdatedAt = ClusterStatusError, fmt.Sprintf("Host %s failed: %s", h.ID, reason), tx.at
	put(tx, tx.m.clusters, KindCluster, nc.ID, &nc)
	for _, id := range tx.m.hostIdx.byCluster[h.ClusterID] {
		o := tx.m.hosts[id]
		if id == h.ID || !slices.Contains(HostInstalling(), o.Status) {
			continue
		}
		oh := *o
		oh.Status, oh.StatusInfo, oh.StatusUpdatedAt = models.HostStatusError, "Installation of the cluster failed", tx.at
		tx.putHost(&oh)
	}
	return h
}
