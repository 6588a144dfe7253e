package engine_test

import (
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/models"
)

const h2ID = "44444444-4444-4444-8444-444444444445"

// installable is a ready cluster with two known hosts.
func installable(t *testing.T) *enginetest.Store {
	t.Helper()
	st := newStore()
	must(t, st, &engine.CreateCluster{Cluster: engine.Cluster{ID: clID, Name: "c1"}})
	must(t, st, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieID, Name: "ie", ClusterID: clID}})
	for _, id := range []string{h1ID, h2ID} {
		must(t, st, &engine.RegisterHost{Host: engine.Host{ID: id, InfraEnvID: ieID, Status: models.HostStatusKnown}})
	}
	must(t, st, &engine.SetClusterStatus{ID: clID, Status: engine.ClusterStatusReady})
	return st
}

func hostOf(st engine.Store, id string) (h engine.Host) {
	st.Read(func(m *engine.Model) { h, _ = m.Host(id) })
	return h
}

func clusterOf(st engine.Store) (c engine.Cluster) {
	st.Read(func(m *engine.Model) { c, _ = m.Cluster(clID) })
	return c
}

func roles() map[string]string { return map[string]string{h1ID: "master", h2ID: "worker"} }

func TestStartInstallChecks(t *testing.T) {
	st := installable(t)
	expectErr(t, st, &engine.StartInstall{ClusterID: clID, Roles: roles(), Bootstrap: h2ID}, engine.ErrInvalid)
	expectErr(t, st, &engine.StartInstall{ClusterID: clID, Roles: map[string]string{h1ID: "master"}, Bootstrap: h1ID}, engine.ErrInvalid)
	hold := true
	must(t, st, &engine.UpdateCluster{ID: clID, Patch: engine.ClusterPatch{HoldInstallation: &hold}})
	expectErr(t, st, &engine.StartInstall{ClusterID: clID, Roles: roles(), Bootstrap: h1ID}, engine.ErrConflict)
	hold = false
	must(t, st, &engine.UpdateCluster{ID: clID, Patch: engine.ClusterPatch{HoldInstallation: &hold}})
	must(t, st, &engine.SetHostStatus{ID: h2ID, Status: models.HostStatusInsufficient})
	expectErr(t, st, &engine.StartInstall{ClusterID: clID, Roles: roles(), Bootstrap: h1ID}, engine.ErrConflict)
	must(t, st, &engine.SetHostStatus{ID: h2ID, Status: models.HostStatusKnown})
	must(t, st, &engine.SetClusterStatus{ID: clID, Status: engine.ClusterStatusInsufficient})
	expectErr(t, st, &engine.StartInstall{ClusterID: clID, Roles: roles(), Bootstrap: h1ID}, engine.ErrConflict)
}

func TestInstallProgressMovesStatus(t *testing.T) {
	st := installable(t)
	must(t, st, &engine.StartInstall{ClusterID: clID, Roles: roles(), Bootstrap: h1ID})
	c := clusterOf(st)
	if c.Status != engine.ClusterStatusPreparingForInstallation || c.InstallStartedAt.IsZero() {
		t.Fatalf("cluster %q started %v", c.Status, c.InstallStartedAt)
	}
	if h := hostOf(st, h1ID); !h.Bootstrap || h.Role != "master" || h.Status != models.HostStatusPreparingForInstallation {
		t.Fatalf("host 1: %+v", h)
	}
	// Progress is refused before the host installs.
	expectErr(t, st, &engine.InstallProgress{ID: h1ID, Stage: "Installing"}, engine.ErrConflict)
	must(t, st, &engine.InstallTransition{ClusterID: clID,
		Cluster: &engine.StatusChange{Status: engine.ClusterStatusInstalling, From: []string{engine.ClusterStatusPreparingForInstallation}},
		Hosts:   []engine.HostChange{{ID: h1ID, Status: models.HostStatusInstalling}, {ID: h2ID, Status: models.HostStatusInstalling}}})
	expectErr(t, st, &engine.InstallProgress{ID: h1ID, Stage: "Sleeping"}, engine.ErrInvalid)
	for i, stage := range engine.InstallStages() {
		v := must(t, st, &engine.InstallProgress{ID: h1ID, InfraEnvID: ieID, Stage: string(stage), Info: "x"})
		res := v.(engine.ProgressResult)
		want := models.HostStatusInstallingInProgress
		if stage == models.HostStageDone {
			want = models.HostStatusInstalled
		}
		if res.Host.Status != want || res.Host.Progress.CurrentStage != string(stage) ||
			res.Host.Progress.InstallationPercentage != engine.StagePercentage(string(stage)) {
			t.Errorf("stage %d %s: %+v", i, stage, res.Host)
		}
	}
	if p := engine.StagePercentage("Done"); p != 100 {
		t.Errorf("Done is %d%%", p)
	}
	expectErr(t, st, &engine.InstallProgress{ID: h2ID, Stage: "Rebooting", InfraEnvID: ie2ID}, engine.ErrNotFound)
	must(t, st, &engine.InstallProgress{ID: h2ID, Stage: "Writing image to disk"})
	expectErr(t, st, &engine.InstallProgress{ID: h2ID, Stage: "Installing"}, engine.ErrInvalid)
}

func TestInstallProgressFailedFailsCluster(t *testing.T) {
	st := installable(t)
	must(t, st, &engine.StartInstall{ClusterID: clID, Roles: roles(), Bootstrap: h1ID})
	must(t, st, &engine.InstallTransition{ClusterID: clID,
		Cluster: &engine.StatusChange{Status: engine.ClusterStatusInstalling},
		Hosts:   []engine.HostChange{{ID: h1ID, Status: models.HostStatusInstalling}, {ID: h2ID, Status: models.HostStatusInstalling}}})
	must(t, st, &engine.InstallProgress{ID: h2ID, Stage: "Failed", Info: "sha256 mismatch"})
	h, c := hostOf(st, h2ID), clusterOf(st)
	if h.Status != models.HostStatusError || h.StatusInfo != "Host failed to install: sha256 mismatch" {
		t.Errorf("host %q %q", h.Status, h.StatusInfo)
	}
	if c.Status != engine.ClusterStatusError || c.StatusInfo != "Host "+h2ID+" failed: Host failed to install: sha256 mismatch" {
		t.Errorf("cluster %q %q", c.Status, c.StatusInfo)
	}
	if h := hostOf(st, h1ID); h.Status != models.HostStatusError {
		t.Errorf("other host %q", h.Status)
	}
}

func TestInstallTransitionAllOrNothing(t *testing.T) {
	st := installable(t)
	expectErr(t, st, &engine.InstallTransition{ClusterID: clID,
		Cluster: &engine.StatusChange{Status: "installing", From: []string{"ready"}},
		Hosts: []engine.HostChange{{ID: h1ID, Status: "installing", From: []string{"known"}},
			{ID: h2ID, Status: "installing", From: []string{"preparing-successful"}}}}, engine.ErrConflict)
	expectErr(t, st, &engine.InstallTransition{ClusterID: clID,
		Hosts: []engine.HostChange{{ID: h1ID, Status: "x"}, {ID: h1ID, Status: "y"}}}, engine.ErrInvalid)
	must(t, st, &engine.InstallTransition{ClusterID: clID,
		Hosts: []engine.HostChange{{ID: h1ID, Status: "installing", From: []string{"known"}, Day2: true, Role: "worker"}}})
	if h := hostOf(st, h1ID); !h.Day2 || h.Role != "worker" || h.Status != "installing" {
		t.Errorf("day-2 host %+v", h)
	}
	for _, stage := range []string{"Starting installation", "Rebooting"} {
		must(t, st, &engine.InstallProgress{ID: h1ID, Stage: stage})
	}
	if h := hostOf(st, h1ID); h.Status != models.HostStatusAddedToExistingCluster {
		t.Errorf("day-2 host after Rebooting: %q", h.Status)
	}
	must(t, st, &engine.InstallProgress{ID: h1ID, Stage: "Done"})
	if h := hostOf(st, h1ID); h.Status != models.HostStatusAddedToExistingCluster || h.Progress.CurrentStage != "Done" {
		t.Errorf("day-2 host after Done: %q %q", h.Status, h.Progress.CurrentStage)
	}
}

func TestManifests(t *testing.T) {
	st := installable(t)
	for _, n := range []string{"b.yaml", "a.yaml"} {
		must(t, st, &engine.PutManifest{ClusterID: clID, Manifest: engine.Manifest{Folder: "manifests", FileName: n, Content: []byte("kind: X")}})
	}
	must(t, st, &engine.PutManifest{ClusterID: clID, Manifest: engine.Manifest{Folder: "manifests", FileName: "a.yaml", Content: []byte("kind: Y")}})
	c := clusterOf(st)
	if len(c.Manifests) != 2 || c.Manifests[0].FileName != "a.yaml" || string(c.Manifests[0].Content) != "kind: Y" {
		t.Errorf("manifests %+v", c.Manifests)
	}
	expectErr(t, st, &engine.DeleteManifest{ClusterID: clID, Folder: "openshift", FileName: "a.yaml"}, engine.ErrNotFound)
	expectErr(t, st, &engine.PutManifest{ClusterID: clID, Manifest: engine.Manifest{Folder: "", FileName: "x"}}, engine.ErrInvalid)
	must(t, st, &engine.DeleteManifest{ClusterID: clID, Folder: "manifests", FileName: "a.yaml"})
	must(t, st, &engine.DeleteManifest{ClusterID: clID, Folder: "manifests", FileName: "b.yaml"})
	if c := clusterOf(st); c.Manifests != nil {
		t.Errorf("manifests left: %+v", c.Manifests)
	}
}
