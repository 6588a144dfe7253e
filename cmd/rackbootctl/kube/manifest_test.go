package kube

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func refs(ms []Manifest) string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Object.GetKind()+"/"+m.Object.GetName())
	}
	return strings.Join(out, " ")
}

// Files, directories (recursive or not), stdin, several documents, empty
// documents, JSON and a List; then kubectl's dependency order.
func TestReadManifests(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.yaml", "---\napiVersion: agent-install.openshift.io/v1beta1\nkind: InfraEnv\nmetadata: {name: ie, namespace: n}\n---\n---\n"+
		"apiVersion: v1\nkind: Secret\nmetadata: {name: ps, namespace: n}\n")
	write(t, dir, "b.json", `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"hive.openshift.io/v1","kind":"ClusterDeployment","metadata":{"name":"cd","namespace":"n"}},`+
		`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"n"}}]}`)
	write(t, dir, "notes.txt", "not a manifest")
	write(t, dir, "sub/c.yml", "apiVersion: hive.openshift.io/v1\nkind: ClusterImageSet\nmetadata: {name: img}\n")

	ms, err := ReadManifests([]string{dir}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := refs(ms); got != "InfraEnv/ie Secret/ps ClusterDeployment/cd Namespace/n" {
		t.Errorf("a directory: %s", got)
	}
	ms, err = ReadManifests([]string{dir, "-"}, true, strings.NewReader("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	SortForCreate(ms)
	want := "Namespace/n Secret/ps ConfigMap/cm ClusterImageSet/img ClusterDeployment/cd InfraEnv/ie"
	if got := refs(ms); got != want {
		t.Errorf("-R and stdin, sorted:\n got %s\nwant %s", got, want)
	}
	if ms[0].Source != filepath.Join(dir, "b.json")+" (document 1) item 2" {
		t.Errorf("source of the Namespace: %q", ms[0].Source)
	}
}

// Every bad input names the file and the document.
func TestReadManifestsRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ text, want string }{
		{"apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\nkind: [\n", "bad.yaml (document 2): "},
		{"metadata: {name: a}\n", "bad.yaml (document 1): apiVersion and kind must be set"},
		{"apiVersion: v1\nkind: Namespace\nmetadata: {}\n", "bad.yaml (document 1): Namespace has no metadata.name"},
		{"- just\n- a list\n", "bad.yaml (document 1): "},
		{"", "no objects passed"},
	} {
		write(t, dir, "bad.yaml", tc.text)
		_, err := ReadManifests([]string{filepath.Join(dir, "bad.yaml")}, false, nil)
		if !errors.Is(err, ErrManifest) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.text, err, tc.want)
		}
	}
	if _, err := ReadManifests([]string{filepath.Join(dir, "missing.yaml")}, false, nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}

// The names a user types resolve as kubectl resolves them.
func TestResolve(t *testing.T) {
	rs := []Resource{
		{Group: "agent-install.openshift.io", Version: "v1beta1", Kind: "Agent", Name: "agents", Singular: "agent", Namespaced: true},
		{Group: "extensions.hive.openshift.io", Version: "v1beta1", Kind: "AgentClusterInstall", Name: "agentclusterinstalls",
			Singular: "agentclusterinstall", ShortNames: []string{"aci"}, Namespaced: true},
		{Version: "v1", Kind: "Namespace", Name: "namespaces", Singular: "namespace", ShortNames: []string{"ns"}},
	}
	for typed, want := range map[string]string{
		"agents": "agents", "Agent": "agents", "agent.agent-install.openshift.io": "agents", "aci": "agentclusterinstalls",
		"agentclusterinstalls.extensions.hive.openshift.io": "agentclusterinstalls", "ns": "namespaces", "Namespaces": "namespaces",
	} {
		if r, ok := resolve(rs, typed); !ok || r.Name != want {
			t.Errorf("%s: %v %v, want %s", typed, r.Name, ok, want)
		}
	}
	for _, typed := range []string{"pods", "agents.metal3.io", "aci.hive.openshift.io"} {
		if r, ok := resolve(rs, typed); ok {
			t.Errorf("%s resolved to %s", typed, r.Name)
		}
	}
	if p := rs[1].Path("sno1", "x"); p != "/apis/extensions.hive.openshift.io/v1beta1/namespaces/sno1/agentclusterinstalls/x" {
		t.Errorf("path %s", p)
	}
	if p := rs[2].Path("ignored", "n"); p != "/api/v1/namespaces/n" {
		t.Errorf("path %s", p)
	}
}

// Whatever standard input holds, reading it returns objects that have
// an apiVersion, a kind and a name, or an ErrManifest; it never panics.
func FuzzReadManifests(f *testing.F) {
	for _, s := range []string{
		"apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\napiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: ConfigMap, metadata: {name: b}}]\n",
		`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"}}`, "---\n---\n", "kind: [\n", "- a\n", "apiVersion: v1\nkind: List\nitems: 3\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		ms, err := ReadManifests([]string{"-"}, false, strings.NewReader(in))
		if err != nil {
			if !errors.Is(err, ErrManifest) {
				t.Fatalf("%q: %v is no ErrManifest", in, err)
			}
			return
		}
		for _, m := range ms {
			if m.Object.GetAPIVersion() == "" || m.Object.GetKind() == "" || m.Object.GetName() == "" {
				t.Fatalf("%q: an object without apiVersion, kind or name: %v", in, m.Object.Object)
			}
		}
	})
}
