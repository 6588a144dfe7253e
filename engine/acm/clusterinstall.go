package acm

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/rackboot/rackboot/engine/models"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/rackboot/rackboot/engine"
)

// clusterRef names a ClusterDeployment (upstream's ClusterReference).
type clusterRef struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
}

// wantedCD is the ClusterDeployment an Agent is to be bound to: its
// spec.clusterDeploymentName, else its InfraEnv's spec.clusterRef, else
// the one whose agentSelector selects it.
func wantedCD(m *engine.Model, agent engine.Object) (clusterRef, bool) {
	var s struct {
		CD *clusterRef `json:"clusterDeploymentName"`
	}
	if decodeSpec(agent, &s) == nil && s.CD != nil && s.CD.Name != "" {
		if s.CD.Namespace == "" {
			s.CD.Namespace = agent.Namespace
		}
		return *s.CD, true
	}
	ie, ok := m.Object(engine.ObjectRef{Group: groupAgent, Kind: kindInfraEnv, Namespace: agent.Namespace,
		Name: agent.Labels[labelInfraEnv]}.Key())
	if ok {
		if cr, ok := infraEnvClusterRef(ie); ok {
			return cr, true
		}
	}
	return selectingCD(m, agent)
}

// selectingCD is the ClusterDeployment of the Agent's namespace whose
// spec.platform.agentBareMetal.agentSelector selects the Agent's labels
// (an empty selector selects none).
func selectingCD(m *engine.Model, agent engine.Object) (clusterRef, bool) {
	for cd := range m.Objects(groupHive, kindCD, agent.Namespace) {
		var s struct {
			Platform struct {
				AgentBareMetal struct {
					AgentSelector *metav1.LabelSelector `json:"agentSelector"`
				} `json:"agentBareMetal"`
			} `json:"platform"`
		}
		if decodeSpec(cd, &s) != nil {
			continue
		}
		ls := s.Platform.AgentBareMetal.AgentSelector
		if ls == nil || len(ls.MatchLabels)+len(ls.MatchExpressions) == 0 {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(ls)
		if err == nil && sel.Matches(labels.Set(agent.Labels)) {
			return clusterRef{Name: cd.Name, Namespace: cd.Namespace}, true
		}
	}
	return clusterRef{}, false
}

// infraEnvClusterRef is an InfraEnv's spec.clusterRef.
func infraEnvClusterRef(ie engine.Object) (clusterRef, bool) {
	var s struct {
		ClusterRef *clusterRef `json:"clusterRef"`
	}
	if decodeSpec(ie, &s) != nil || s.ClusterRef == nil || s.ClusterRef.Name == "" {
		return clusterRef{}, false
	}
	if s.ClusterRef.Namespace == "" {
		s.ClusterRef.Namespace = ie.Namespace
	}
	return *s.ClusterRef, true
}

// bindAgents binds to in's cluster the unbound hosts whose Agents name its
// ClusterDeployment (late binding, or the InfraEnv's clusterRef).
func bindAgents(ctx context.Context, o Options, in install) error {
	if !in.cdOK {
		return nil
	}
	var ids []string
	o.Store.Read(func(m *engine.Model) {
		for a := range m.Objects(groupAgent, kindAgent, "") {
			cd, ok := wantedCD(m, a)
			if !ok || cd.Name != in.cd.Name || cd.Namespace != in.cd.Namespace {
				continue
			}
			// A host unbound after its installation binds again once it
			// registered anew from the discovery image.
			if h, ok := m.Host(a.Name); ok && h.ClusterID == "" && h.Status != "unbinding-pending-user-action" {
				ids = append(ids, h.ID)
			}
		}
	})
	for _, id := range ids {
		if err := o.Domain.BindHost(ctx, id, in.aci.UID); err != nil {
			return fmt.Errorf("bind Agent %s: %w", id, err)
		}
		o.Log.Info("Agent bound to its ClusterDeployment", "host", id, "cluster", in.aci.UID)
	}
	return nil
}

// installing are the statuses of a cluster whose installation started.
var installing = []string{engine.ClusterStatusPreparingForInstallation, engine.ClusterStatusInstalling,
	engine.ClusterStatusInstallingPendingUserAction, engine.ClusterStatusFinalizing, engine.ClusterStatusAddingHosts}

// stopped are the statuses of a cluster whose installation ended.
var stopped = []string{engine.ClusterStatusInstalled, engine.ClusterStatusError, engine.ClusterStatusCancelled}

// requirementsMet is upstream's RequirementsMet condition of cluster c
// and the ACI's provisionRequirements: the approved, registered Agents
// must be exactly the ones required.
func requirementsMet(m *engine.Model, c engine.Cluster, s aciSpec) map[string]any {
	const typ = "RequirementsMet"
	switch {
	case slices.Contains(installing, c.Status):
		return cond(typ, "True", "ClusterAlreadyInstalling", "The cluster requirements are met")
	case slices.Contains(stopped, c.Status):
		return cond(typ, "True", "ClusterInstallationStopped", "The cluster installation stopped")
	case c.Status != engine.ClusterStatusReady:
		return cond(typ, "False", "ClusterNotReady", "The cluster is not ready to begin the installation")
	}
	registered, unapproved := 0, 0
	for h := range m.HostsOfCluster(c.ID) {
		registered++
		if !h.Approved {
			unapproved++
		}
	}
	expected := s.ProvisionRequirements.ControlPlaneAgents + s.ProvisionRequirements.WorkerAgents
	switch {
	case registered < expected:
		return cond(typ, "False", "InsufficientAgents",
			fmt.Sprintf("The cluster currently requires %d agents but only %d have registered", expected, registered))
	case unapproved > 0:
		return cond(typ, "False", "UnapprovedAgents", fmt.Sprintf("The installation is pending on the approval of %d agents", unapproved))
	case registered > expected:
		return cond(typ, "False", "AdditionalAgents",
			fmt.Sprintf("The cluster currently requires exactly %d agents but have %d registered", expected, registered))
	}
	return cond(typ, "True", "ClusterIsReady", "The cluster is ready to begin the installation")
}

// autoInstall starts the installation of in's cluster once its
// requirements are met, unless the ACI holds it, as upstream's controller
// does.
func autoInstall(ctx context.Context, o Options, in install) error {
	id := in.aci.UID
	var met map[string]any
	var hold bool
	o.Store.Read(func(m *engine.Model) {
		if c, ok := m.Cluster(id); ok {
			met, hold = requirementsMet(m, c, in.spec), c.HoldInstallation
		}
	})
	if met == nil || met["reason"] != "ClusterIsReady" || hold || in.spec.HoldInstallation {
		return nil
	}
	if err := o.Domain.InstallCluster(ctx, id); err != nil {
		return err
	}
	o.Log.Info("installation started by its AgentClusterInstall", "cluster", id, "name", in.aci.Namespace+"/"+in.aci.Name)
	return nil
}

// aciStatus is the AgentClusterInstall's status from its cluster:
// upstream's conditions, debugInfo and progress.
func aciStatus(o Options, m *engine.Model, c engine.Cluster, s aciSpec, valid map[string]any) map[string]any {
	info := c.StatusInfo
	var conds []any
	conds = append(conds, cond("SpecSynced", "True", "SyncOK", "The Spec has been successfully applied"))
	conds = append(conds, valid)
	conds = append(conds, requirementsMet(m, c, s))
	switch c.Status {
	case engine.ClusterStatusInstalled:
		conds = append(conds, cond("Completed", "True", "InstallationCompleted", "The installation has completed: "+info),
			cond("Failed", "False", "InstallationNotFailed", "The installation has not failed"),
			cond("Stopped", "True", "InstallationCompleted", "The installation has stopped because it completed successfully"))
	case engine.ClusterStatusError:
		conds = append(conds, cond("Completed", "False", "InstallationFailed", "The installation has failed: "+info),
			cond("Failed", "True", "InstallationFailed", "The installation failed: "+info),
			cond("Stopped", "True", "InstallationFailed", "The installation has stopped due to error"))
	case engine.ClusterStatusCancelled:
		conds = append(conds, cond("Completed", "False", "InstallationFailed", "The installation has failed: "+info),
			cond("Failed", "True", "InstallationFailed", "The installation failed: "+info),
			cond("Stopped", "True", "InstallationCancelled", "The installation has stopped because it was cancelled"))
	default:
		completed := cond("Completed", "False", "InstallationNotStarted", "The installation has not yet started")
		switch {
		case slices.Contains(installing, c.Status):
			completed = cond("Completed", "False", "InstallationInProgress", "The installation is in progress: "+info)
		case c.Status == engine.ClusterStatusReady && (c.HoldInstallation || s.HoldInstallation):
			completed = cond("Completed", "False", "InstallationOnHold", "The installation is on hold. To unhold set holdInstallation to false")
		}
		conds = append(conds, completed, cond("Failed", "False", "InstallationNotFailed", "The installation has not failed"),
			cond("Stopped", "False", "InstallationNotStopped", "The installation is waiting to start or in progress"))
	}
	var sum, n int
	counts := map[string]int{}
	for h := range m.HostsOfCluster(c.ID) {
		sum += h.Progress.InstallationPercentage
		n++
		pool := "worker"
		if h.Role == "master" || h.Role == "bootstrap" || h.Role == "" && c.ControlPlaneCount == 1 {
			pool = "controlPlane"
		}
		counts[pool+"AgentsDiscovered"]++
		if h.Approved && h.Status == "known" {
			counts[pool+"AgentsReady"]++
		}
	}
	pct := 0
	if c.Status == engine.ClusterStatusInstalled {
		pct = 100
	} else if n > 0 {
		pct = sum / n
	}
	st := map[string]any{
		"conditions": conds,
		"debugInfo": map[string]any{"state": c.Status, "stateInfo": info,
			"eventsURL": o.ServiceURL + models.BasePath + "/events?cluster_id=" + c.ID},
		"progress": map[string]any{"totalPercentage": pct},
	}
	for k, v := range counts { // upstream's omitempty counts
		st[k] = v
	}
	return st
}

// validated is upstream's Validated condition: the cluster's own failing
// validations (its hosts' show on their Agents). It reads the store: call
// it outside a Read.
func validated(o Options, id string) map[string]any {
	var c engine.Cluster
	o.Store.Read(func(m *engine.Model) { c, _ = m.Cluster(id) })
	switch {
	case c.Status == "":
		return cond("Validated", "Unknown", "ValidationsUnknown", "The cluster's validations have not yet been calculated")
	case slices.Contains(installing, c.Status) || slices.Contains(stopped, c.Status):
		// An installation starts only with passing validations; upstream
		// stops evaluating them then.
		return cond("Validated", "True", "ValidationsPassing", "The cluster's validations are passing")
	}
	var failing []string
	for _, v := range o.Domain.FailingValidations(c.ID) {
		if v.HostID == "" {
			failing = append(failing, v.Message)
		}
	}
	if len(failing) > 0 {
		return cond("Validated", "False", "ValidationsFailing", "The cluster's validations are failing: "+strings.Join(failing, ","))
	}
	return cond("Validated", "True", "ValidationsPassing", "The cluster's validations are passing")
}

// writeACIStatus writes the ACI's status from its cluster, with the
// SpecSynced condition failed when failed is not nil, as upstream's (the
// failed condition alone while there is no cluster).
func writeACIStatus(ctx context.Context, o Options, in install, failed map[string]any) error {
	var st map[string]any
	valid := validated(o, in.aci.UID)
	o.Store.Read(func(m *engine.Model) {
		if c, ok := m.Cluster(in.aci.UID); ok {
			st = aciStatus(o, m, c, in.spec, valid)
		}
	})
	switch {
	case failed != nil && st == nil:
		st = map[string]any{"conditions": []any{failed}}
	case failed != nil:
		st["conditions"].([]any)[0] = failed
	case st == nil:
		return nil
	}
	return putStatus(ctx, o, in.aci, st)
}

// putStatus replaces obj's status with st unless it already says the
// same; a condition keeps its lastTransitionTime while its status stays.
func putStatus(ctx context.Context, o Options, obj engine.Object, st map[string]any) error {
	var body map[string]any
	if err := json.Unmarshal(obj.Body, &body); err != nil {
		return err
	}
	old, _ := body["status"].(map[string]any)
	if conds, ok := st["conditions"].([]any); ok {
		st["conditions"] = stamp(old, conds, o.Now())
	}
	if old != nil && equalJSON(old, st) {
		return nil
	}
	body["status"] = st
	return putBody(ctx, o, obj, body)
}

// stamp gives each condition its lastTransitionTime (kept from old when
// its status did not change) and lastProbeTime.
func stamp(old map[string]any, conds []any, now time.Time) []any {
	prev := map[string]map[string]any{}
	if old != nil {
		oc, _ := old["conditions"].([]any)
		for _, c := range oc {
			if m, ok := c.(map[string]any); ok {
				t, _ := m["type"].(string)
				prev[t] = m
			}
		}
	}
	ts := now.UTC().Format(time.RFC3339)
	for _, c := range conds {
		m := c.(map[string]any)
		p := prev[m["type"].(string)]
		m["lastTransitionTime"], m["lastProbeTime"] = ts, ts
		if p != nil && p["status"] == m["status"] {
			m["lastTransitionTime"] = p["lastTransitionTime"]
			if p["reason"] == m["reason"] && p["message"] == m["message"] {
				m["lastProbeTime"] = p["lastProbeTime"]
			}
		}
	}
	return conds
}

func equalJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}
