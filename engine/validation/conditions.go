package validation

import (
	"slices"
	"strings"

	"github.com/rackboot/rackboot/engine/models"
)

// Condition is one entry of an Agent's status.conditions (the CR view of a
// host that ZTP users read with kubectl).
type Condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"` // "True", "False" or "Unknown"
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// Agent condition types.
const (
	ConditionConnected       = "Connected"
	ConditionRequirementsMet = "RequirementsMet"
	ConditionValidated       = "Validated"
	ConditionBound           = "Bound"
)

const (
	condTrue    = "True"
	condFalse   = "False"
	condUnknown = "Unknown"
)

// AgentConditions derives the Connected, RequirementsMet, Validated and
// Bound conditions from a host's status, its approval and its validation
// results (nil when not yet computed), with upstream's reasons and messages.
func AgentConditions(status string, approved bool, rs Results) []Condition {
	return []Condition{connectedCondition(status), requirementsCondition(status, approved),
		validatedCondition(status, rs), boundCondition(status)}
}

func connectedCondition(status string) Condition {
	if status == models.HostStatusDisconnected || status == models.HostStatusDisconnectedUnbound {
		return Condition{ConditionConnected, condFalse, "AgentIsDisconnected",
			"The agent has not contacted the installation service in some time, user action should be taken"}
	}
	return Condition{ConditionConnected, condTrue, "AgentIsConnected", "The agent's connection to the installation service is unimpaired"}
}

func requirementsCondition(status string, approved bool) Condition {
	const t = ConditionRequirementsMet
	switch status {
	case models.HostStatusKnown, models.HostStatusKnownUnbound:
		if approved {
			return Condition{t, condTrue, "AgentIsReady", "The agent is ready to begin the installation"}
		}
		return Condition{t, condFalse, "AgentIsNotApproved", "The agent is not approved"}
	case models.HostStatusInsufficient, models.HostStatusDisconnected, models.HostStatusInsufficientUnbound,
		models.HostStatusDisconnectedUnbound, models.HostStatusDiscoveringUnbound, models.HostStatusDiscovering,
		models.HostStatusPendingForInput:
		return Condition{t, condFalse, "AgentNotReady", "The agent is not ready to begin the installation"}
	case models.HostStatusPreparingForInstallation, models.HostStatusPreparingSuccessful, models.HostStatusInstalling,
		models.HostStatusInstallingInProgress, models.HostStatusInstallingPendingUserAction:
		return Condition{t, condTrue, "AgentAlreadyInstalling", "Installation already started and is in progress"}
	case models.HostStatusInstalled, models.HostStatusError, models.HostStatusAddedToExistingCluster:
		return Condition{t, condTrue, "AgentInstallationStopped", "The agent installation stopped"}
	}
	if c, ok := bindingCondition(t, status); ok {
		return c
	}
	return Condition{t, condUnknown, "UnknownStatus", "The installation status is currently not recognized: " + status}
}

func bindingCondition(t, status string) (Condition, bool) {
	switch status {
	case models.HostStatusBinding:
		return Condition{t, condFalse, "Binding", "The agent is currently binding to a cluster deployment"}, true
	case models.HostStatusUnbinding, models.HostStatusUnbindingPendingUserAction:
		return Condition{t, condFalse, "Unbinding", "The agent is currently unbinding from a cluster deployment"}, true
	}
	return Condition{}, false
}

func validatedCondition(status string, rs Results) Condition {
	const t = ConditionValidated
	if c, ok := bindingCondition(t, status); ok {
		return c
	}
	var failing []string
	for _, r := range rs {
		if !r.Hidden && r.Status != StatusSuccess && r.Status != StatusDisabled {
			failing = append(failing, r.Message)
		}
	}
	switch {
	case status == models.HostStatusInsufficient || status == models.HostStatusInsufficientUnbound:
		return Condition{t, condFalse, "ValidationsFailing", "The agent's validations are failing: " + strings.Join(failing, ",")}
	case status == models.HostStatusPendingForInput:
		return Condition{t, condFalse, "ValidationsUserPending", "The agent's validations are pending for user: " + strings.Join(failing, ",")}
	case rs == nil:
		return Condition{t, condUnknown, "ValidationsUnknown", "The agent's validations have not yet been calculated"}
	}
	return Condition{t, condTrue, "ValidationsPassing", "The agent's validations are passing"}
}

func boundCondition(status string) Condition {
	const t = ConditionBound
	if status == models.HostStatusUnbindingPendingUserAction {
		return Condition{t, condFalse, "UnbindingPendingUserAction", "The agent is currently unbinding; Pending host reboot from infraenv image"}
	}
	if c, ok := bindingCondition(t, status); ok {
		return c
	}
	if slices.Contains([]string{models.HostStatusDisconnectedUnbound, models.HostStatusKnownUnbound, models.HostStatusInsufficientUnbound,
		models.HostStatusDisabledUnbound, models.HostStatusDiscoveringUnbound}, status) {
		return Condition{t, condFalse, "Unbound", "The agent is not bound to any cluster deployment"}
	}
	return Condition{t, condTrue, "Bound", "The agent is bound to a cluster deployment"}
}
