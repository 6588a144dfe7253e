package engine

import (
	"math"
	"slices"

	"github.com/rackboot/rackboot/engine/models"
)

// Cluster states of the installation (upstream's names). The validations
// choose between pending-for-input, insufficient and ready.
const (
	ClusterStatusInsufficient                = "insufficient"
	ClusterStatusReady                       = "ready"
	ClusterStatusPendingForInput             = "pending-for-input"
	ClusterStatusPreparingForInstallation    = "preparing-for-installation"
	ClusterStatusInstalling                  = "installing"
	ClusterStatusInstallingPendingUserAction = "installing-pending-user-action"
	ClusterStatusFinalizing                  = "finalizing"
	ClusterStatusInstalled                   = "installed"
	ClusterStatusAddingHosts                 = "adding-hosts"
	ClusterStatusCancelled                   = "cancelled"
	ClusterStatusError                       = "error"
)

// ClusterInstalling lists the cluster states of an installation under way:
// the install controller watches them and they time out.
func ClusterInstalling() []string {
	return []string{ClusterStatusPreparingForInstallation, ClusterStatusInstalling,
		ClusterStatusInstallingPendingUserAction, ClusterStatusFinalizing}
}

// HostInstalling lists the host states of an installation under way.
func HostInstalling() []string {
	return []string{models.HostStatusPreparingForInstallation, models.HostStatusPreparingSuccessful,
		models.HostStatusInstalling, models.HostStatusInstallingInProgress,
		models.HostStatusInstallingPendingUserAction}
}

// InstallStages are the stages every host reports, in order (rackboot's
// agent and first boot report these; Failed may come at any point).
func InstallStages() []models.HostStage {
	return []models.HostStage{models.HostStageStartingInstallation, models.HostStageInstalling,
		models.HostStageWritingImageToDisk, models.HostStageRebooting, models.HostStageConfiguring,
		models.HostStageJoined, models.HostStageDone}
}

// StageIndex is the position of stage in InstallStages (-1: not one).
func StageIndex(stage string) int {
	return slices.Index(InstallStages(), models.HostStage(stage))
}

// StagePercentage is upstream's installation_percentage of a stage: the
// share of the stages reached, rounded (0 for a stage not in the list).
func StagePercentage(stage string) int {
	i := StageIndex(stage)
	if i < 0 {
		return 0
	}
	return int(math.Round(float64(i+1) * 100 / float64(len(InstallStages()))))
}

// PastRebooting reports whether a host at stage has written its disk and
// reboots (or rebooted) into it: its boot script is exit from then on.
func PastRebooting(stage string) bool {
	return StageIndex(stage) >= StageIndex(string(models.HostStageRebooting))
}

// Install artifacts a cluster's generator produced, kept in the Secret
// named InstallSecretName(cluster) under these keys.
const (
	ArtifactBootstrap         = "bootstrap.ign"
	ArtifactMaster            = "master.ign"
	ArtifactWorker            = "worker.ign"
	ArtifactInstallConfig     = "install-config.yaml"
	ArtifactMetadata          = "metadata.json"
	ArtifactKubeconfig        = "kubeconfig"
	ArtifactKubeadminPassword = "kubeadmin-password"
)

// InstallSecretType is the Type of the Secret holding install artifacts.
const InstallSecretType = "install-artifacts"

// InstallSecretName names the Secret holding cluster id's install
// artifacts (they hold the pull secret and credentials).
func InstallSecretName(clusterID string) string { return "install-" + clusterID }

// Image set generators.
const (
	GeneratorUserConfigs      = "user-configs"
	GeneratorOpenShiftInstall = "openshift-install"
)
