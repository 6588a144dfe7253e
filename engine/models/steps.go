package models

// StepType names a step the service asks an agent to run.
type StepType string

// Step types, as upstream spells them.
const (
	StepTypeConnectivityCheck          StepType = "connectivity-check"
	StepTypeExecute                    StepType = "execute"
	StepTypeInventory                  StepType = "inventory"
	StepTypeInstall                    StepType = "install"
	StepTypeFreeNetworkAddresses       StepType = "free-network-addresses"
	StepTypeDhcpLeaseAllocate          StepType = "dhcp-lease-allocate"
	StepTypeAPIVipConnectivityCheck    StepType = "api-vip-connectivity-check"
	StepTypeTangConnectivityCheck      StepType = "tang-connectivity-check"
	StepTypeNtpSynchronizer            StepType = "ntp-synchronizer"
	StepTypeInstallationDiskSpeedCheck StepType = "installation-disk-speed-check"
	StepTypeContainerImageAvailability StepType = "container-image-availability"
	StepTypeDomainResolution           StepType = "domain-resolution"
	StepTypeStopInstallation           StepType = "stop-installation"
	StepTypeLogsGather                 StepType = "logs-gather"
	StepTypeNextStepRunner             StepType = "next-step-runner"
	StepTypeUpgradeAgent               StepType = "upgrade-agent"
	StepTypeDownloadBootArtifacts      StepType = "download-boot-artifacts"
	StepTypeRebootForReclaim           StepType = "reboot-for-reclaim"
	StepTypeVerifyVips                 StepType = "verify-vips"
)

// StepTypes lists every step type upstream defines, in upstream's order.
func StepTypes() []StepType {
	return []StepType{
		StepTypeConnectivityCheck, StepTypeExecute, StepTypeInventory, StepTypeInstall,
		StepTypeFreeNetworkAddresses, StepTypeDhcpLeaseAllocate, StepTypeAPIVipConnectivityCheck,
		StepTypeTangConnectivityCheck, StepTypeNtpSynchronizer, StepTypeInstallationDiskSpeedCheck,
		StepTypeContainerImageAvailability, StepTypeDomainResolution, StepTypeStopInstallation,
		StepTypeLogsGather, StepTypeNextStepRunner, StepTypeUpgradeAgent,
		StepTypeDownloadBootArtifacts, StepTypeRebootForReclaim, StepTypeVerifyVips,
	}
}

// Step is one instruction: run StepType with Args and reply with StepID.
type Step struct {
	Args     []string `json:"args"`
	StepID   string   `json:"step_id,omitempty"`
	StepType StepType `json:"step_type,omitempty"`
}

// Steps is the answer to GET .../hosts/{host_id}/instructions.
type Steps struct {
	Instructions           []*Step `json:"instructions"`
	NextInstructionSeconds int64   `json:"next_instruction_seconds,omitempty"`
	PostStepAction         string  `json:"post_step_action,omitempty"`
}

// Values of Steps.PostStepAction: "exit" makes the agent re-register.
const (
	PostStepActionExit     = "exit"
	PostStepActionContinue = "continue"
)

// StepReply is what the agent POSTs to .../instructions after running a
// step. ExitCode is omitted when 0.
type StepReply struct {
	Error    string   `json:"error,omitempty"`
	ExitCode int64    `json:"exit_code,omitempty"`
	Output   string   `json:"output,omitempty"`
	StepID   string   `json:"step_id,omitempty"`
	StepType StepType `json:"step_type,omitempty"`
}

// HostCreateParams is the body of POST /v2/infra-envs/{id}/hosts. HostID is
// 8-4-4-4-12 hex but not necessarily an RFC 4122 UUID.
type HostCreateParams struct {
	DiscoveryAgentVersion string `json:"discovery_agent_version,omitempty"`
	HostID                string `json:"host_id"`
}

// HostRegistrationResponse is the 201 answer to a registration: the Host
// plus the command the agent runs to start polling for steps. A nil
// NextStepRunnerCommand makes the agent sleep and register again later.
type HostRegistrationResponse struct {
	Host
	NextStepRunnerCommand *NextStepRunnerCommand `json:"next_step_runner_command,omitempty"`
}

// NextStepRunnerCommand tells the agent how to start its step runner. Args
// holds exactly one element: the JSON text of a NextStepCmdRequest.
type NextStepRunnerCommand struct {
	Args         []string `json:"args"`
	Command      string   `json:"command,omitempty"`
	RetrySeconds int64    `json:"retry_seconds,omitempty"`
}

// NextStepCmdRequest is the JSON carried in NextStepRunnerCommand.Args[0].
type NextStepCmdRequest struct {
	AgentVersion string `json:"agent_version"`
	HostID       string `json:"host_id"`
	InfraEnvID   string `json:"infra_env_id"`
}
