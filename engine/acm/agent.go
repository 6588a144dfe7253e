package acm

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// kindAgent is upstream's Agent.
const kindAgent = "Agent"

// labelInfraEnv is the label upstream puts on an Agent: its InfraEnv's
// name.
const labelInfraEnv = "infraenvs.agent-install.openshift.io"

// annotationSynced holds the Agent spec last synced with its host.
const annotationSynced = "rackboot.io/synced-spec"

// hostSpec is the host's side of an Agent spec.
func hostSpec(h engine.Host) agentSpec {
	role := h.Role
	if role == "" {
		role = "auto-assign"
	}
	return agentSpec{Approved: h.Approved, Role: role, Hostname: h.RequestedHostname,
		InstallationDiskID: h.InstallationDiskID, IgnitionConfigOverrides: h.IgnitionOverride, InstallerArgs: h.InstallerArgs}
}

// agentPair is a host registered from an InfraEnv's infra-env, its
// InfraEnv and its Agent (ok false: none yet).
type agentPair struct {
	host  engine.Host
	ie    engine.Object
	agent engine.Object
	ok    bool
}

// reconcileAgents gives every host registered from an InfraEnv's
// infra-env an Agent (name: the host id, in the InfraEnv's namespace,
// labelled with its name and spec.agentLabels), takes the Agent's
// spec.approved, role and hostname to the host, and writes the host's
// state into the Agent's status; only the hosts in only when not nil,
// and of those only the ones whose host, Agent or InfraEnv changed since
// they were last reconciled (agentMemo).
func reconcileAgents(ctx context.Context, o Options, ies []engine.Object, only map[string]bool) {
	pairs := agentPairs(o, ies, only)
	for _, p := range pairs {
		if o.agentHook != nil {
			o.agentHook(p.host.ID)
		}
		done, err := agentDeleting(ctx, o, p)
		switch {
		case done:
		case p.ok && !slices.Contains(p.agent.Finalizers(), finalizerAgent):
			err = setFinalizers(ctx, o, p.agent, append(p.agent.Finalizers(), finalizerAgent)) // the next pass goes on
		default:
			err = reconcileAgent(ctx, o, p)
		}
		switch {
		case err == nil:
			o.memo.done(p)
		case ctx.Err() == nil:
			o.Log.Warn("Agent not reconciled", "host", p.host.ID, "infra_env", p.host.InfraEnvID, "err", err)
		}
	}
}

// agentPairs are the hosts registered from the InfraEnvs ies' infra-envs
// with their InfraEnv and Agent: those in only (nil: every host) whose
// host, Agent or InfraEnv changed since they were last reconciled.
func agentPairs(o Options, ies []engine.Object, only map[string]bool) []agentPair {
	byUID := map[string]engine.Object{}
	for _, ie := range ies {
		byUID[ie.UID] = ie
	}
	var pairs []agentPair
	var hosts map[string]bool // a full pass's hosts with an InfraEnv
	if only == nil {
		hosts = map[string]bool{}
	}
	o.Store.Read(func(m *engine.Model) {
		add := func(h engine.Host) {
			ie, ok := byUID[h.InfraEnvID]
			if !ok {
				return
			}
			if hosts != nil {
				hosts[h.ID] = true
			}
			ref := engine.ObjectRef{Group: groupAgent, Kind: kindAgent, Namespace: ie.Namespace, Name: h.ID}
			a, found := m.Object(ref.Key())
			if p := (agentPair{host: h, ie: ie, agent: a, ok: found}); !o.memo.unchanged(p) {
				pairs = append(pairs, p)
			}
		}
		if only != nil {
			for id := range only {
				if h, ok := m.Host(id); ok {
					add(h)
				}
			}
			return
		}
		for h := range m.Hosts() {
			add(h)
		}
	})
	if hosts != nil {
		o.memo.keepOnly(hosts)
	}
	return pairs
}

// agentSpec is the part of an Agent's spec taken to the host.
type agentSpec struct {
	Approved                bool   `json:"approved"`
	Role                    string `json:"role,omitempty"`
	Hostname                string `json:"hostname,omitempty"`
	InstallationDiskID      string `json:"installation_disk_id,omitempty"`
	IgnitionConfigOverrides string `json:"ignitionConfigOverrides,omitempty"`
	// InstallerArgs is a JSON array of coreos-installer flags, as
	// upstream's Agent spec holds it.
	InstallerArgs string `json:"installerArgs,omitempty"`
}

func reconcileAgent(ctx context.Context, o Options, p agentPair) error {
	if !p.ok {
		return createAgent(ctx, o, p)
	}
	var body, p0 map[string]any
	if err := json.Unmarshal(p.agent.Body, &body); err != nil {
		return fmt.Errorf("decode agent: %w", err)
	}
	_ = json.Unmarshal(p.agent.Body, &p0)
	var spec agentSpec
	if b, err := json.Marshal(body["spec"]); err == nil {
		_ = json.Unmarshal(b, &spec)
	}
	// The spec last synced is kept in an annotation: an Agent spec that
	// differs from it was changed by the user (kubectl patch) and goes to
	// the host; else a host that differs from it was changed through the
	// REST API and goes to the Agent's spec.
	ann := annotations(body)
	var synced agentSpec
	if s, ok := ann[annotationSynced].(string); !ok || json.Unmarshal([]byte(s), &synced) != nil {
		synced = hostSpec(p.host)
	}
	host := hostSpec(p.host)
	var syncErr error
	switch {
	case spec != synced:
		if syncErr = toHost(ctx, o, p.host, spec); syncErr == nil {
			synced = spec
		} else if !errors.Is(syncErr, engine.ErrInvalid) {
			return syncErr
		}
	case host != synced:
		sp, _ := body["spec"].(map[string]any)
		if sp == nil {
			sp = map[string]any{}
		}
		sp["approved"], sp["role"], sp["hostname"] = host.Approved, host.Role, host.Hostname
		setOrDrop(sp, "installation_disk_id", host.InstallationDiskID)
		setOrDrop(sp, "ignitionConfigOverrides", host.IgnitionConfigOverrides)
		setOrDrop(sp, "installerArgs", host.InstallerArgs)
		body["spec"] = sp
		synced = host
	}
	sb, _ := json.Marshal(synced)
	ann[annotationSynced] = string(sb)
	st := agentStatus(p.host)
	if syncErr != nil { // the user's spec is refused: upstream's InputError
		conds := st["conditions"].([]any)
		conds[0] = syncError(syncErr)
	}
	old, _ := p0["status"].(map[string]any)
	st["conditions"] = stamp(old, st["conditions"].([]any), o.Now())
	if p.agent.Generation > 0 { // as putBody writes it: else every pass differs
		st["observedGeneration"] = p.agent.Generation
	}
	before := normal(map[string]any{"spec": p0["spec"], "status": p0["status"], "metadata": p0["metadata"]})
	body["status"] = st
	after := normal(map[string]any{"spec": body["spec"], "status": body["status"], "metadata": body["metadata"]})
	if reflect.DeepEqual(before, after) {
		return nil
	}
	a := p.agent
	if !reflect.DeepEqual(normal(before.(map[string]any)["spec"]), normal(body["spec"])) {
		a.Generation++
	}
	return putBody(ctx, o, a, body)
}

// setOrDrop sets sp[k] to v, or drops it when v is "".
func setOrDrop(sp map[string]any, k, v string) {
	if v == "" {
		delete(sp, k)
	} else {
		sp[k] = v
	}
}

// toHost takes what the user set on the Agent to the host through the
// domain (the REST API's host update and its checks).
func toHost(ctx context.Context, o Options, h engine.Host, s agentSpec) error {
	var p models.HostUpdateParams
	cur := hostSpec(h)
	changed := false
	if s.Approved != cur.Approved {
		p.Approved, changed = &s.Approved, true
	}
	if s.Role != "" && s.Role != cur.Role {
		p.HostRole, changed = &s.Role, true
	}
	if s.Hostname != cur.Hostname && s.Hostname != "" {
		p.HostName, changed = &s.Hostname, true
	}
	if s.InstallationDiskID != cur.InstallationDiskID && s.InstallationDiskID != "" {
		id := s.InstallationDiskID
		p.DisksSelectedConfig, changed = []models.DiskConfig{{ID: &id, Role: "install"}}, true
	}
	if s.IgnitionConfigOverrides != cur.IgnitionConfigOverrides {
		p.IgnitionConfigOverrides, changed = &s.IgnitionConfigOverrides, true
	}
	if changed {
		if err := o.Domain.UpdateHost(ctx, h.ID, p); err != nil {
			return fmt.Errorf("update host: %w", err)
		}
	}
	if s.InstallerArgs != cur.InstallerArgs {
		var args []string
		if s.InstallerArgs != "" {
			if err := json.Unmarshal([]byte(s.InstallerArgs), &args); err != nil {
				return inputErr("spec.installerArgs is not a JSON array of strings: %v", err)
			}
		}
		if err := o.Domain.SetInstallerArgs(ctx, h.ID, args); err != nil {
			return fmt.Errorf("update host installer args: %w", err)
		}
		changed = true
	}
	if changed {
		o.Log.Info("Agent spec taken to the host", "host", h.ID, "infra_env", h.InfraEnvID)
	}
	return nil
}

func createAgent(ctx context.Context, o Options, p agentPair) error {
	labels := map[string]string{labelInfraEnv: p.ie.Name}
	var ieBody struct {
		Spec struct {
			AgentLabels map[string]string `json:"agentLabels"`
		} `json:"spec"`
	}
	_ = json.Unmarshal(p.ie.Body, &ieBody)
	maps.Copy(labels, ieBody.Spec.AgentLabels)
	hs := hostSpec(p.host)
	synced, _ := json.Marshal(hs)
	spec := map[string]any{"approved": hs.Approved, "role": hs.Role, "hostname": hs.Hostname}
	if cr, ok := infraEnvClusterRef(p.ie); ok {
		spec["clusterDeploymentName"] = map[string]any{"name": cr.Name, "namespace": cr.Namespace}
	}
	st := agentStatus(p.host)
	st["conditions"] = stamp(nil, st["conditions"].([]any), o.Now())
	body, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"name": p.host.ID, "namespace": p.ie.Namespace, "labels": labels, "finalizers": []string{finalizerAgent},
			"annotations": map[string]any{annotationSynced: string(synced)}},
		"spec":   spec,
		"status": st,
	})
	if err != nil {
		return err
	}
	a := engine.Object{
		ObjectRef: engine.ObjectRef{Group: groupAgent, Kind: kindAgent, Namespace: p.ie.Namespace, Name: p.host.ID},
		UID:       newUID(), Generation: 1, Labels: labels, Body: body,
	}
	_, err = o.Store.Apply(ctx, &engine.PutObject{Object: a, Create: true})
	if engine.IsExists(err) {
		return nil
	}
	if err == nil {
		o.Log.Info("Agent created for a registered host", "host", p.host.ID, "infra_env", p.host.InfraEnvID)
	}
	return err
}

// agentStatus is the host's state as upstream's Agent status shows it.
func agentStatus(h engine.Host) map[string]any {
	st := map[string]any{
		"debugInfo":  map[string]any{"state": h.Status, "stateInfo": h.StatusInfo},
		"progress":   map[string]any{"currentStage": h.Progress.CurrentStage, "installationPercentage": h.Progress.InstallationPercentage},
		"conditions": agentConditions(h),
	}
	if vi := validationsInfo(h); len(vi) > 0 {
		st["validationsInfo"] = vi
	}
	if h.Role != "" {
		st["role"] = h.Role
	}
	if inv := agentInventory(h.Inventory); len(inv) > 0 {
		st["inventory"] = inv
	}
	if h.InstallationDiskID != "" {
		st["installation_disk_id"] = h.InstallationDiskID
	}
	if ntp := agentNTPSources(h.NTPSources); len(ntp) > 0 {
		st["ntpSources"] = ntp
	}
	return st
}

// normal is v through JSON, so that a stored status and a computed one
// compare equal when they encode alike.
func normal(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

func newUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
