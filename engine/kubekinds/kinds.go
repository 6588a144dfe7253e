package kubekinds

// Resource is one served kind: its group, version and names.
type Resource struct {
	Group      string // "" for the core group
	Version    string
	Kind       string
	Plural     string
	Singular   string
	ShortNames []string
	Namespaced bool
}

// Groups and versions of the kinds (upstream's).
const (
	GroupHive      = "hive.openshift.io"
	GroupHiveExt   = "extensions.hive.openshift.io"
	GroupAgent     = "agent-install.openshift.io"
	GroupMetal3    = "metal3.io"
	VersionV1      = "v1"
	VersionV1beta1 = "v1beta1"
)

// Served returns the served kinds, in discovery order (a new slice each
// call).
func Served() []Resource {
	return []Resource{
		{Version: VersionV1, Kind: "Namespace", Plural: "namespaces", Singular: "namespace", ShortNames: []string{"ns"}},
		{Version: VersionV1, Kind: "Secret", Plural: "secrets", Singular: "secret", Namespaced: true},
		{Version: VersionV1, Kind: "ConfigMap", Plural: "configmaps", Singular: "configmap", ShortNames: []string{"cm"}, Namespaced: true},
		{Group: GroupHive, Version: VersionV1, Kind: "ClusterImageSet", Plural: "clusterimagesets", Singular: "clusterimageset",
			ShortNames: []string{"imgset"}},
		{Group: GroupHive, Version: VersionV1, Kind: "ClusterDeployment", Plural: "clusterdeployments", Singular: "clusterdeployment",
			ShortNames: []string{"cd"}, Namespaced: true},
		{Group: GroupHiveExt, Version: VersionV1beta1, Kind: "AgentClusterInstall", Plural: "agentclusterinstalls",
			Singular: "agentclusterinstall", ShortNames: []string{"aci"}, Namespaced: true},
		{Group: GroupAgent, Version: VersionV1beta1, Kind: "InfraEnv", Plural: "infraenvs", Singular: "infraenv", Namespaced: true},
		{Group: GroupAgent, Version: VersionV1beta1, Kind: "NMStateConfig", Plural: "nmstateconfigs", Singular: "nmstateconfig", Namespaced: true},
		{Group: GroupAgent, Version: VersionV1beta1, Kind: "Agent", Plural: "agents", Singular: "agent", Namespaced: true},
		{Group: GroupAgent, Version: VersionV1beta1, Kind: "AgentServiceConfig", Plural: "agentserviceconfigs", Singular: "agentserviceconfig"},
		{Group: GroupMetal3, Version: "v1alpha1", Kind: "BareMetalHost", Plural: "baremetalhosts", Singular: "baremetalhost",
			ShortNames: []string{"bmh", "bmhost"}, Namespaced: true},
		{Version: VersionV1, Kind: "Event", Plural: "events", Singular: "event", ShortNames: []string{"ev"}, Namespaced: true},
	}
}

// Lookup returns the served kind of group and name.
func Lookup(group, kind string) (Resource, bool) {
	for _, k := range Served() {
		if k.Group == group && k.Kind == kind {
			return k, true
		}
	}
	return Resource{}, false
}
