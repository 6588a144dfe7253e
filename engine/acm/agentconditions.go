package acm

import (
	"slices"
	"strings"

	"github.com/rackboot/rackboot/engine"
	m "github.com/rackboot/rackboot/engine/models"
)

// agentConditions are upstream's Agent conditions for host h: SpecSynced,
// Connected, RequirementsMet, Validated, Installed and Bound, with the
// reasons and messages of assisted-service's Agent controller.
func agentConditions(h engine.Host) []any {
	conds := []any{cond("SpecSynced", "True", "SyncOK", "The Spec has been successfully applied")}
	if h.Status == m.HostStatusDisconnected || h.Status == m.HostStatusDisconnectedUnbound {
		conds = append(conds, cond("Connected", "False", "AgentIsDisconnected",
			"The agent has not contacted the installation service in some time, user action should be taken"))
	} else {
		conds = append(conds, cond("Connected", "True", "AgentIsConnected", "The agent's connection to the installation service is unimpaired"))
	}
	return append(conds, agentRequirements(h), agentValidated(h), agentInstalled(h), agentBound(h))
}

func agentRequirements(h engine.Host) map[string]any {
	const typ = "RequirementsMet"
	switch h.Status {
	case m.HostStatusKnown, m.HostStatusKnownUnbound:
		if h.Approved {
			return cond(typ, "True", "AgentIsReady", "The agent is ready to begin the installation")
		}
		return cond(typ, "False", "AgentIsNotApproved", "The agent is not approved")
	case m.HostStatusInsufficient, m.HostStatusDisconnected, m.HostStatusInsufficientUnbound, m.HostStatusDisconnectedUnbound,
		m.HostStatusDiscoveringUnbound, m.HostStatusDiscovering, m.HostStatusPendingForInput:
		return cond(typ, "False", "AgentNotReady", "The agent is not ready to begin the installation")
	case m.HostStatusPreparingForInstallation, m.HostStatusPreparingSuccessful, m.HostStatusInstalling,
		m.HostStatusInstallingInProgress, m.HostStatusInstallingPendingUserAction:
		return cond(typ, "True", "AgentAlreadyInstalling", "Installation already started and is in progress")
	case m.HostStatusInstalled, m.HostStatusError, m.HostStatusAddedToExistingCluster:
		return cond(typ, "True", "AgentInstallationStopped", "The agent installation stopped")
	case m.HostStatusBinding:
		return cond(typ, "False", "Binding", "The agent is currently binding to a cluster deployment")
	case m.HostStatusUnbinding, m.HostStatusUnbindingPendingUserAction:
		return cond(typ, "False", "Unbinding", "The agent is currently unbinding from a cluster deployment")
	}
	return cond(typ, "Unknown", "UnknownStatus", "The installation status is currently not recognized: "+h.Status)
}

func agentValidated(h engine.Host) map[string]any {
	const typ = "Validated"
	if len(h.Validations) == 0 {
		return cond(typ, "Unknown", "ValidationsUnknown", "The agent's validations have not yet been calculated")
	}
	var failing, pending []string
	for _, v := range h.Validations {
		switch v.Status {
		case "failure":
			failing = append(failing, v.Message)
		case "pending":
			pending = append(pending, v.Message)
		}
	}
	switch {
	case len(failing) > 0:
		return cond(typ, "False", "ValidationsFailing", "The agent's validations are failing: "+strings.Join(failing, ","))
	case len(pending) > 0 && h.Status == m.HostStatusPendingForInput:
		return cond(typ, "False", "ValidationsUserPending", "The agent's validations are pending for user: "+strings.Join(pending, ","))
	}
	return cond(typ, "True", "ValidationsPassing", "The agent's validations are passing")
}

func agentInstalled(h engine.Host) map[string]any {
	const typ = "Installed"
	switch {
	case h.Status == m.HostStatusInstalled:
		return cond(typ, "True", "InstallationCompleted", "The installation has completed: "+h.StatusInfo)
	case h.Status == m.HostStatusError:
		return cond(typ, "False", "InstallationFailed", "The installation has failed: "+h.StatusInfo)
	case slices.Contains([]string{m.HostStatusPreparingForInstallation, m.HostStatusPreparingSuccessful, m.HostStatusInstalling,
		m.HostStatusInstallingInProgress, m.HostStatusInstallingPendingUserAction}, h.Status):
		return cond(typ, "False", "InstallationInProgress", "The installation is in progress: "+h.StatusInfo)
	}
	return cond(typ, "False", "InstallationNotStarted", "The installation has not yet started")
}

func agentBound(h engine.Host) map[string]any {
	const typ = "Bound"
	switch {
	case h.Status == m.HostStatusBinding:
		return cond(typ, "False", "Binding", "The agent is currently binding to a cluster deployment")
	case h.Status == m.HostStatusUnbinding:
		return cond(typ, "False", "Unbinding", "The agent is currently unbinding from a cluster deployment")
	case h.Status == m.HostStatusUnbindingPendingUserAction:
		return cond(typ, "False", "UnbindingPendingUserAction", "The agent is currently unbinding; Pending host reboot from infraenv image")
	case h.ClusterID != "":
		return cond(typ, "True", "Bound", "The agent is bound to a cluster deployment")
	}
	return cond(typ, "False", "Unbound", "The agent is not bound to any cluster deployment")
}

// validationsInfo groups h's validations by category, as upstream's
// Agent status.validationsInfo.
func validationsInfo(h engine.Host) map[string]any {
	out := map[string]any{}
	for _, v := range h.Validations {
		list, _ := out[v.Category].([]any)
		out[v.Category] = append(list, map[string]any{"id": v.ID, "status": v.Status, "message": v.Message})
	}
	return out
}
