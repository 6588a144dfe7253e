package kubeapi_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// manifests are the project's copies of the seeds' and upstream's
// documents: what users' YAML looks like.
var manifests = []string{
	"../../cmd/rackbootd/testdata/kube/ztp.yaml",
	"../../cmd/rackbootd/testdata/kube/sno.yaml",
	"../../cmd/rackbootctl/cli/testdata/sno1-bmh.yaml",
	"../../boot/nmstate/testdata/nmstateconfig-object/input.yaml",
}

// kindPaths are the collection paths of the kinds in namespace ns.
var kindPaths = map[string]string{
	"Namespace":           "/api/v1/namespaces",
	"Secret":              "/api/v1/namespaces/ns/secrets",
	"ConfigMap":           "/api/v1/namespaces/ns/configmaps",
	"ClusterImageSet":     "/apis/hive.openshift.io/v1/clusterimagesets",
	"ClusterDeployment":   "/apis/hive.openshift.io/v1/namespaces/ns/clusterdeployments",
	"AgentClusterInstall": acisPath,
	"InfraEnv":            infraEnvsPath,
	"NMStateConfig":       nmstatePath,
	"Agent":               agentsPath,
	"AgentServiceConfig":  "/apis/agent-install.openshift.io/v1beta1/agentserviceconfigs",
	"BareMetalHost":       bmhPath,
}

// Every document of the seeds' manifests passes strict field validation:
// the schemas declare every field users' YAML has (dry run: nothing is
// written).
func TestManifestsPassStrictValidation(t *testing.T) {
	f := newFixture(t, 0)
	f.setup()
	n := 0
	for _, file := range manifests {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range strings.Split(string(b), "\n---") {
			var obj map[string]any
			if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if obj == nil {
				continue
			}
			kind, _ := obj["kind"].(string)
			path, ok := kindPaths[kind]
			if !ok {
				t.Errorf("%s: kind %q", file, kind)
				continue
			}
			if md, ok := obj["metadata"].(map[string]any); ok && kind != "Namespace" {
				delete(md, "namespace")
			}
			body, _ := json.Marshal(obj)
			code, out, warn := f.send("POST", path+"?fieldValidation=Strict&dryRun=All", "application/json", string(body))
			if code == 400 || code == 422 || len(warn) > 0 {
				t.Errorf("%s: %s: %d %s %q", file, kind, code, out, warn)
			}
			n++
		}
	}
	if n < 15 {
		t.Errorf("checked %d documents", n)
	}
}
