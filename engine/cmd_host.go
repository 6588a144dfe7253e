package engine

import (
	"encoding/json"
	"time"
)

// RegisterHost stores a host that registered from an infra-env, bound to
// the infra-env's cluster if it has one. Registering a known host again
// (same infra-env) replaces what the agent reports (status, inventory,
// agent version) and keeps what the user set (role, hostname, approval,
// disk, cluster). A host of another infra-env is a conflict. Event, when
// set, is appended in the same entry with the stored host's ids.
type RegisterHost struct {
	Stamp
	Host  Host   `json:"host"`
	Event *Event `json:"event,omitempty"`
}

// Type implements Command.
func (*RegisterHost) Type() Type { return TypeRegisterHost }

func (c *RegisterHost) bodyVersion() byte { return versionIf(c.Event != nil) }

// versionIf is the body version of a command that uses a version-2 field
// when uses2 holds.
func versionIf(uses2 bool) byte {
	if uses2 {
		return bodyVersion2
	}
	return bodyVersion
}

func (c *RegisterHost) apply(tx *Tx) (any, error) {
	in := c.Host
	if err := checkID(KindHost, in.ID); err != nil {
		return nil, err
	}
	ie, ok := tx.m.infraEnvs[in.InfraEnvID]
	if !ok {
		return nil, notFound(KindInfraEnv, in.InfraEnvID)
	}
	h := in
	if old, ok := tx.m.hosts[in.ID]; ok {
		if old.InfraEnvID != in.InfraEnvID {
			return nil, conflict("host %s belongs to infra-env %s", in.ID, old.InfraEnvID)
		}
		h = *old
		h.Status, h.StatusInfo = in.Status, in.StatusInfo
		h.Inventory, h.AgentVersion = in.Inventory, in.AgentVersion
		h.Validations, h.Progress, h.StepResults = nil, Progress{}, StepResults{}
	} else {
		h.Meta = Meta{}
		h.ClusterID = ""
	}
	if ie.ClusterID != "" {
		h.ClusterID = ie.ClusterID
	}
	h.StatusUpdatedAt, h.CheckedInAt = tx.at, tx.at
	tx.putHost(&h)
	tx.hostEvent(c.Event, h)
	return h, nil
}

// hostEvent appends e (when not nil) about host h, with h's ids: the
// event a command carries with it, so that a change and the event that
// reports it are one log entry.
func (tx *Tx) hostEvent(e *Event, h Host) {
	if e == nil {
		return
	}
	ev := *e
	ev.ClusterID, ev.InfraEnvID, ev.HostID = h.ClusterID, h.InfraEnvID, h.ID
	tx.appendEvent(ev)
}

// HostPatch lists the fields of a host to change; nil leaves a field as it
// is. Inventory, NTPSources, DomainResolutions and Connectivity replace
// theirs when not nil.
type HostPatch struct {
	RequestedHostname  *string         `json:"requested_hostname,omitempty"`
	Role               *string         `json:"role,omitempty"`
	Approved           *bool           `json:"approved,omitempty"`
	InstallationDiskID *string         `json:"installation_disk_id,omitempty"`
	Inventory          json.RawMessage `json:"inventory,omitempty"`
	CheckedInAt        *time.Time      `json:"checked_in_at,omitempty"`
	Progress           *Progress       `json:"progress,omitempty"`
	Validations        *[]Validation   `json:"validations,omitempty"`
	AgentVersion       *string         `json:"discovery_agent_version,omitempty"`
	NTPSources         json.RawMessage `json:"ntp_sources,omitempty"`
	DomainResolutions  json.RawMessage `json:"domain_name_resolutions,omitempty"`
	Connectivity       json.RawMessage `json:"connectivity,omitempty"`
	HostTime           *int64          `json:"timestamp,omitempty"`
	IgnitionOverride   *string         `json:"ignition_config_overrides,omitempty"`
	DisksInfo          json.RawMessage `json:"disks_info,omitempty"`
	// InstallerArgs is a JSON array of strings ("" removes them).
	InstallerArgs *string `json:"installer_args,omitempty"`
}

// UpdateHost changes fields of a host. InfraEnvID, when set, must be the
// host's infra-env (an agent may only touch hosts of its own). Event, when
// set, is appended in the same entry with the host's ids.
type UpdateHost struct {
	Stamp
	ID         string    `json:"id"`
	InfraEnvID string    `json:"infra_env_id,omitempty"`
	Patch      HostPatch `json:"patch"`
	Event      *Event    `json:"event,omitempty"`
}

// Type implements Command.
func (*UpdateHost) Type() Type { return TypeUpdateHost }

func (c *UpdateHost) bodyVersion() byte { return versionIf(c.Event != nil) }

func (c *UpdateHost) apply(tx *Tx) (any, error) {
	old, err := hostOf(tx, c.ID, c.InfraEnvID)
	if err != nil {
		return nil, err
	}
	p, h := c.Patch, *old
	set(&h.RequestedHostname, p.RequestedHostname)
	set(&h.Role, p.Role)
	set(&h.Approved, p.Approved)
	set(&h.InstallationDiskID, p.InstallationDiskID)
	setRaw(&h.Inventory, p.Inventory)
	set(&h.CheckedInAt, p.CheckedInAt)
	set(&h.Progress, p.Progress)
	set(&h.Validations, p.Validations)
	set(&h.AgentVersion, p.AgentVersion)
	setRaw(&h.NTPSources, p.NTPSources)
	setRaw(&h.DomainResolutions, p.DomainResolutions)
	setRaw(&h.Connectivity, p.Connectivity)
	set(&h.HostTime, p.HostTime)
	set(&h.IgnitionOverride, p.IgnitionOverride)
	setRaw(&h.DisksInfo, p.DisksInfo)
	set(&h.InstallerArgs, p.InstallerArgs)
	tx.putHost(&h)
	tx.hostEvent(c.Event, h)
	return h, nil
}

// setRaw replaces *dst with v when v is not nil.
func setRaw(dst *json.RawMessage, v json.RawMessage) {
	if v != nil {
		*dst = v
	}
}

// hostOf returns host id, checking that it belongs to infraEnvID when that
// is set.
func hostOf(tx *Tx, id, infraEnvID string) (*Host, error) {
	h, ok := tx.m.hosts[id]
	if !ok || infraEnvID != "" && h.InfraEnvID != infraEnvID {
		return nil, notFound(KindHost, id)
	}
	return h, nil
}

// DeleteHost removes a host.
type DeleteHost struct {
	Stamp
	ID         string `json:"id"`
	InfraEnvID string `json:"infra_env_id,omitempty"`
}

// Type implements Command.
func (*DeleteHost) Type() Type { return TypeDeleteHost }

func (c *DeleteHost) apply(tx *Tx) (any, error) {
	if _, err := hostOf(tx, c.ID, c.InfraEnvID); err != nil {
		return nil, err
	}
	tx.delHost(c.ID)
	return nil, nil
}

// BindHost binds an unbound host of an unbound infra-env to a cluster
// (late binding). Binding it again to the same cluster changes nothing.
type BindHost struct {
	Stamp
	ID        string `json:"id"`
	ClusterID string `json:"cluster_id"`
}

// Type implements Command.
func (*BindHost) Type() Type { return TypeBindHost }

func (c *BindHost) apply(tx *Tx) (any, error) {
	old, ok := tx.m.hosts[c.ID]
	if !ok {
		return nil, notFound(KindHost, c.ID)
	}
	if _, ok := tx.m.clusters[c.ClusterID]; !ok {
		return nil, notFound(KindCluster, c.ClusterID)
	}
	if old.ClusterID == c.ClusterID {
		return *old, nil
	}
	if old.ClusterID != "" {
		return nil, conflict("host %s is bound to cluster %s", c.ID, old.ClusterID)
	}
	h := *old
	h.ClusterID = c.ClusterID
	tx.putHost(&h)
	return h, nil
}

// UnbindHost unbinds a host from its cluster. A host whose infra-env is
// bound to a cluster cannot be unbound. With Reset (a host past its
// installation, which goes unbinding-pending-user-action), what the
// cluster's installation left on the host goes too, as upstream's unbind
// transition resets it: the progress, bootstrap, day-2 mark, machine
// config pool and the connectivity and domain resolution results (the
// role and installation disk stay: they are the Agent's spec, which
// upstream's Agent controller would apply again).
type UnbindHost struct {
	Stamp
	ID    string `json:"id"`
	Reset bool   `json:"reset,omitempty"`
}

// Type implements Command.
func (*UnbindHost) Type() Type { return TypeUnbindHost }

func (c *UnbindHost) bodyVersion() byte { return versionIf(c.Reset) }

func (c *UnbindHost) apply(tx *Tx) (any, error) {
	old, ok := tx.m.hosts[c.ID]
	if !ok {
		return nil, notFound(KindHost, c.ID)
	}
	if ie := tx.m.infraEnvs[old.InfraEnvID]; ie != nil && ie.ClusterID != "" {
		return nil, conflict("host %s: infra-env %s is bound to cluster %s", c.ID, ie.ID, ie.ClusterID)
	}
	if old.ClusterID == "" {
		return *old, nil
	}
	h := *old
	h.ClusterID = ""
	if c.Reset {
		h.Progress, h.Bootstrap, h.Day2, h.MachineConfigPool = Progress{}, false, false, ""
		h.Connectivity, h.DomainResolutions = nil, nil
	}
	tx.putHost(&h)
	return h, nil
}

// SetHostStatus sets a host's status. When From is not empty the current
// status must be one of From (else ErrConflict). Validations, when set,
// replace the host's with the status they led to; Event, when set, is
// appended with the host's ids: an evaluation, its outcome and its event
// are one log entry.
type SetHostStatus struct {
	Stamp
	ID          string        `json:"id"`
	Status      string        `json:"status"`
	StatusInfo  string        `json:"status_info"`
	From        []string      `json:"from,omitempty"`
	Validations *[]Validation `json:"validations,omitempty"`
	Event       *Event        `json:"event,omitempty"`
}

// Type implements Command.
func (*SetHostStatus) Type() Type { return TypeSetHostStatus }

func (c *SetHostStatus) bodyVersion() byte { return versionIf(c.Event != nil || c.Validations != nil) }

func (c *SetHostStatus) apply(tx *Tx) (any, error) {
	old, ok := tx.m.hosts[c.ID]
	if !ok {
		return nil, notFound(KindHost, c.ID)
	}
	if c.Status == "" {
		return nil, invalid("host %s: empty status", c.ID)
	}
	if !statusAllowed(old.Status, c.From) {
		return nil, conflict("host %s is %q, not one of %q", c.ID, old.Status, c.From)
	}
	h := *old
	if h.Status != c.Status {
		h.StatusUpdatedAt = tx.at
	}
	h.Status, h.StatusInfo = c.Status, c.StatusInfo
	set(&h.Validations, c.Validations)
	tx.putHost(&h)
	tx.hostEvent(c.Event, h)
	return h, nil
}
