package models

// Event is an event as the v2 API shows it (GET /v2/events).
type Event struct {
	Category   string   `json:"category,omitempty"`
	ClusterID  string   `json:"cluster_id,omitempty"`
	EventTime  DateTime `json:"event_time"`
	HostID     string   `json:"host_id,omitempty"`
	InfraEnvID string   `json:"infra_env_id,omitempty"`
	Message    string   `json:"message"`
	Name       string   `json:"name,omitempty"`
	Props      string   `json:"props,omitempty"`
	RequestID  string   `json:"request_id,omitempty"`
	Severity   string   `json:"severity"`
}

// Watch event types (WatchEvent.Type), as Kubernetes watch streams name
// them.
const (
	WatchAdded    = "ADDED"
	WatchModified = "MODIFIED"
	WatchDeleted  = "DELETED"
)

// WatchEvent is one line of a host watch stream (GET
// /v2/infra-envs/{id}/hosts?watch=true, a rackboot extension): a host
// that appeared, changed or was deleted. A deleted host carries only its
// ids.
type WatchEvent struct {
	Type   string   `json:"type"`
	Object *APIHost `json:"object"`
}
