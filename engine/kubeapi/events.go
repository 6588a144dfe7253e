package kubeapi

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/fields"

	"github.com/rackboot/rackboot/engine"
)

// eventResource is the core v1 Event: the domain's events (engine.Event)
// shown as Events of the objects they concern, so that `kubectl describe`
// lists them. They are not stored as objects: a list maps the kept
// domain events when it is served.
func eventResource() *Resource {
	return &Resource{
		Columns: []Column{
			{Name: "Last Seen", Type: "date", JSONPath: ".lastTimestamp"},
			{Name: "Type", Type: "string", JSONPath: ".type"},
			{Name: "Reason", Type: "string", JSONPath: ".reason"},
			{Name: "Object", Type: "string", JSONPath: ".involvedObject.name"},
			{Name: "Message", Type: "string", JSONPath: ".message"}}}
}

// isEvent reports whether res is the core Event.
func isEvent(res *Resource) bool { return res.Group == "" && res.Kind == "Event" }

// eventFields are the field selectors an Event list takes besides
// metadata's (kubectl describe's: involvedObject.name, namespace, kind and
// uid).
func eventFields() []string {
	return []string{"involvedObject.name", "involvedObject.namespace", "involvedObject.kind", "involvedObject.uid",
		"involvedObject.apiVersion", "reason", "type"}
}

// involved is an object events are about.
type involved struct {
	obj        engine.Object
	apiVersion string
}

// domainEvents maps the kept domain events after sequence number after
// onto the objects of namespace ns ("" all) they concern (eventMapper).
func domainEvents(m *engine.Model, ns string, after uint64) []engine.Object {
	mapEvent := eventMapper(m, ns)
	var out []engine.Object
	for e := range m.Events(after) {
		if o, ok := mapEvent(e); ok {
			out = append(out, o)
		}
	}
	return out
}

// eventMapper returns the mapping of a domain event onto the object of
// namespace ns ("" all) it concerns, false when there is none: an event
// of a host to its Agent, an event of a cluster to its
// AgentClusterInstall (the cluster's id is its uid), an event of an
// infra-env alone to its InfraEnv.
// The objects are indexed at the first call (the model must still be
// read-locked then).
func eventMapper(m *engine.Model, ns string) func(engine.Event) (engine.Object, bool) {
	var byCluster, byInfraEnv, byHost map[string]involved
	index := func() {
		byCluster, byInfraEnv, byHost = map[string]involved{}, map[string]involved{}, map[string]involved{}
		for o := range m.Objects(groupHiveExt, "AgentClusterInstall", ns) {
			byCluster[o.UID] = involved{o, groupHiveExt + "/" + versionV1beta1}
		}
		for o := range m.Objects(groupAgent, "InfraEnv", ns) {
			byInfraEnv[o.UID] = involved{o, groupAgent + "/" + versionV1beta1}
		}
		for o := range m.Objects(groupAgent, "Agent", ns) {
			byHost[o.Name] = involved{o, groupAgent + "/" + versionV1beta1}
		}
	}
	return func(e engine.Event) (engine.Object, bool) {
		if byHost == nil {
			index()
		}
		var in involved
		var ok bool
		switch {
		case e.HostID != "":
			in, ok = byHost[e.HostID]
		case e.ClusterID != "":
			in, ok = byCluster[e.ClusterID]
		case e.InfraEnvID != "":
			in, ok = byInfraEnv[e.InfraEnvID]
		}
		if !ok {
			return engine.Object{}, false
		}
		return eventObject(e, in), true
	}
}

// eventObject is domain event e as a v1 Event of in.
func eventObject(e engine.Event, in involved) engine.Object {
	typ := "Normal"
	if e.Severity != "info" {
		typ = "Warning"
	}
	at := e.Time.UTC().Format(time.RFC3339)
	name := fmt.Sprintf("%s.%016x", in.obj.Name, e.Seq)
	body := fmt.Appendf(nil, `{"metadata":{"name":%q,"namespace":%q},"involvedObject":{"apiVersion":%q,"kind":%q,"name":%q,"namespace":%q,"uid":%q},`+
		`"reason":%q,"message":%q,"type":%q,"count":1,"firstTimestamp":%q,"lastTimestamp":%q,"source":{"component":"rackboot"},"reportingComponent":"rackboot"}`,
		name, in.obj.Namespace, in.apiVersion, in.obj.Kind, in.obj.Name, in.obj.Namespace, in.obj.UID,
		reason(e.Name), e.Message, typ, at, at)
	return engine.Object{Meta: engine.Meta{CreatedAt: e.Time, UpdatedAt: e.Time, Revision: e.Seq},
		ObjectRef: engine.ObjectRef{Kind: "Event", Namespace: in.obj.Namespace, Name: name},
		UID:       fmt.Sprintf("%08x-0000-4000-8000-%012x", e.Seq>>48, e.Seq&0xffffffffffff), Body: body}
}

// reason is an event name in an Event's CamelCase
// (cluster_installation_started → ClusterInstallationStarted).
func reason(name string) string {
	if name == "" {
		return "Event"
	}
	var b strings.Builder
	for _, w := range strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == '-' }) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// eventFieldSet is the field set an Event is selected by.
func eventFieldSet(view map[string]any) fields.Set {
	md, _ := view["metadata"].(map[string]any)
	set := fields.Set{}
	set["metadata.name"], _ = md["name"].(string)
	set["metadata.namespace"], _ = md["namespace"].(string)
	io, _ := view["involvedObject"].(map[string]any)
	for _, f := range eventFields() {
		if k, ok := strings.CutPrefix(f, "involvedObject."); ok {
			set[f], _ = io[k].(string)
		} else {
			set[f], _ = view[f].(string)
		}
	}
	return set
}
