package kubeapi

import (
	"k8s.io/apimachinery/pkg/util/managedfields"

	"github.com/rackboot/rackboot/engine/kubekinds"
)

// Column is a printer column: upstream's additionalPrinterColumns of the
// kind's CRD (or the core printer's for v1 kinds).
type Column struct {
	Name        string
	Type        string // string, integer, boolean, date
	JSONPath    string // the column's value; "" for a computed core column
	Description string
	Priority    int32
}

// Resource is one kind the API serves.
type Resource struct {
	kubekinds.Resource
	// Status: the kind has a status subresource, so writes to the object
	// keep the stored status and /status writes change only it.
	Status  bool
	Columns []Column
	// Core computes the core printer's cells for v1 kinds (after Name).
	Core func(obj map[string]any) []any
	// Schema is the kind's OpenAPI v3 schema from schemas/*.schema (nil: not
	// served, not checked); loadSchemas sets it.
	Schema map[string]any
	// types types the kind's objects for its field managers (typed.go);
	// loadSchemas sets it from Schema.
	types managedfields.TypeConverter
}

// GroupVersion is "group/version", or "version" for the core group.
func (r *Resource) GroupVersion() string {
	if r.Group == "" {
		return r.Version
	}
	return r.Group + "/" + r.Version
}

// GroupResource is "plural.group" as Kubernetes names it in messages.
func (r *Resource) GroupResource() string {
	if r.Group == "" {
		return r.Plural
	}
	return r.Plural + "." + r.Group
}

var ageColumn = Column{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"}

// Groups of the kinds (upstream's).
const (
	groupHive      = kubekinds.GroupHive
	groupHiveExt   = kubekinds.GroupHiveExt
	groupAgent     = kubekinds.GroupAgent
	groupMetal3    = kubekinds.GroupMetal3
	versionV1      = kubekinds.VersionV1
	versionV1beta1 = kubekinds.VersionV1beta1
)

// resources returns the served kinds: kubekinds' list, with each kind's
// status subresource, printer columns and core printer from presentation.
func resources() []*Resource {
	pres := presentation()
	var out []*Resource
	for _, k := range kubekinds.Served() {
		r := pres[k.Group+"/"+k.Kind]
		if r == nil {
			r = &Resource{}
		}
		r.Resource = k
		out = append(out, r)
	}
	return out
}

// presentation returns, by "group/kind", what the API adds to the served
// kinds. The printer columns are upstream's: openshift/assisted-service
// config/crd/bases, openshift/hive config/crds,
// metal3-io/baremetal-operator config/base/crds/bases.
func presentation() map[string]*Resource {
	return map[string]*Resource{
		"/Namespace": {Status: true,
			Columns: []Column{{Name: "Status", Type: "string", Description: "The status of the namespace"}, ageColumn},
			Core:    namespaceCells},
		"/Secret": {
			Columns: []Column{
				{Name: "Type", Type: "string", Description: "The type of the secret"},
				{Name: "Data", Type: "string", Description: "The number of entries in the data"}, ageColumn},
			Core: secretCells},
		"/ConfigMap": {
			Columns: []Column{{Name: "Data", Type: "string", Description: "The number of entries in the data"}, ageColumn},
			Core:    configMapCells},
		groupHive + "/ClusterImageSet": {Status: true,
			Columns: []Column{{Name: "Release", Type: "string", JSONPath: ".spec.releaseImage"}, ageColumn}},
		groupHive + "/ClusterDeployment": {Status: true,
			Columns: []Column{
				{Name: "InfraID", Type: "string", JSONPath: ".spec.clusterMetadata.infraID"},
				{Name: "Platform", Type: "string", JSONPath: `.metadata.labels.hive\.openshift\.io/cluster-platform`},
				{Name: "Region", Type: "string", JSONPath: `.metadata.labels.hive\.openshift\.io/cluster-region`},
				{Name: "Version", Type: "string", JSONPath: `.metadata.labels.hive\.openshift\.io/version-major-minor-patch`},
				{Name: "ClusterType", Type: "string", JSONPath: `.metadata.labels.hive\.openshift\.io/cluster-type`},
				{Name: "ProvisionStatus", Type: "string", JSONPath: `.status.conditions[?(@.type=='Provisioned')].reason`},
				{Name: "PowerState", Type: "string", JSONPath: ".status.powerState"},
				ageColumn}},
		groupHiveExt + "/AgentClusterInstall": {Status: true,
			Columns: []Column{
				{Name: "Cluster", Type: "string", JSONPath: ".spec.clusterDeploymentRef.name", Description: "The name of the cluster the AgentClusterInstall is for."},
				{Name: "State", Type: "string", JSONPath: ".status.debugInfo.state", Description: "The state of the cluster installation."}}},
		groupAgent + "/InfraEnv": {Status: true,
			Columns: []Column{{Name: "ISO Created At", Type: "date", JSONPath: ".status.createdTime", Description: "The time at which the InfraEnv ISO was generated"}}},
		groupAgent + "/NMStateConfig": {Status: true, Columns: []Column{ageColumn}},
		groupAgent + "/Agent": {Status: true,
			Columns: []Column{
				{Name: "Cluster", Type: "string", JSONPath: ".spec.clusterDeploymentName.name", Description: "The name of the cluster the Agent registered to."},
				{Name: "Approved", Type: "boolean", JSONPath: ".spec.approved", Description: "The `Approve` state of the Agent."},
				{Name: "Role", Type: "string", JSONPath: ".status.role", Description: "The role (master/worker) of the Agent."},
				{Name: "Stage", Type: "string", JSONPath: ".status.progress.currentStage", Description: "The HostStage of the Agent."},
				{Name: "Hostname", Type: "string", JSONPath: ".status.inventory.hostname", Priority: 1, Description: "The hostname of the Agent."},
				{Name: "Requested Hostname", Type: "string", JSONPath: ".spec.hostname", Priority: 1, Description: "The requested hostname for the Agent."}}},
		groupAgent + "/AgentServiceConfig": {Status: true, Columns: []Column{ageColumn}},
		groupMetal3 + "/BareMetalHost": {Status: true,
			Columns: []Column{
				{Name: "Status", Type: "string", JSONPath: ".status.operationalStatus", Priority: 1, Description: "Operational status"},
				{Name: "State", Type: "string", JSONPath: ".status.provisioning.state", Description: "Provisioning status"},
				{Name: "Consumer", Type: "string", JSONPath: ".spec.consumerRef.name", Description: "Consumer using this host"},
				{Name: "BMC", Type: "string", JSONPath: ".spec.bmc.address", Priority: 1, Description: "Address of management controller"},
				{Name: "Hardware_Profile", Type: "string", JSONPath: ".status.hardwareProfile", Priority: 1, Description: "The type of hardware detected"},
				{Name: "Online", Type: "string", JSONPath: ".spec.online", Description: "Whether the host is online or not"},
				{Name: "Error", Type: "string", JSONPath: ".status.errorType", Description: "Type of the most recent error"},
				ageColumn}},
		"/Event": eventResource(),
	}
}
