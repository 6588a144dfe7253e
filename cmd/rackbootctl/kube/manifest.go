package kube

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// ErrManifest: a manifest that cannot be read or is no object.
var ErrManifest = errors.New("bad manifest")

// maxManifest bounds one file or standard input.
const maxManifest = 16 << 20

// Manifest is one object of the files given to apply or delete.
type Manifest struct {
	Source string // "file.yaml", "file.yaml (document 2)"
	Object *unstructured.Unstructured
}

// ReadManifests reads the objects of paths: files, directories (their
// .yaml, .yml and .json files; subdirectories too when recursive) and
// "-" for stdin. Each may hold several YAML documents or JSON objects,
// and a kind List is its items. Any error is returned before anything is
// used, naming the file and document.
func ReadManifests(paths []string, recursive bool, stdin io.Reader) ([]Manifest, error) {
	var out []Manifest
	for _, p := range paths {
		files, err := expand(p, recursive)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			ms, err := readFile(f, stdin)
			if err != nil {
				return nil, err
			}
			out = append(out, ms...)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no objects passed (%s)", ErrManifest, strings.Join(paths, ", "))
	}
	return out, nil
}

// expand is the files path names.
func expand(p string, recursive bool) ([]string, error) {
	if p == "-" {
		return []string{p}, nil
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrManifest, err)
	}
	if !st.IsDir() {
		return []string{p}, nil
	}
	var files []string
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != p && !recursive {
				return filepath.SkipDir
			}
			return nil
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".yaml", ".yml", ".json":
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrManifest, err)
	}
	return files, nil
}

// readFile decodes every document of one file.
func readFile(name string, stdin io.Reader) ([]Manifest, error) {
	r := stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrManifest, err)
		}
		defer f.Close()
		r = f
	} else {
		name = "standard input"
	}
	b, err := io.ReadAll(io.LimitReader(r, maxManifest+1))
	if err != nil {
		return nil, fmt.Errorf("%w: reading %s: %w", ErrManifest, name, err)
	}
	if len(b) > maxManifest {
		return nil, fmt.Errorf("%w: %s is larger than %d MiB", ErrManifest, name, maxManifest>>20)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
	var out []Manifest
	for doc := 1; ; doc++ {
		var m map[string]any
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		src := fmt.Sprintf("%s (document %d)", name, doc)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrManifest, src, err)
		}
		if m == nil {
			continue // an empty document
		}
		ms, err := objects(src, m)
		if err != nil {
			return nil, err
		}
		out = append(out, ms...)
	}
}

// objects checks one document and expands a List.
func objects(src string, m map[string]any) ([]Manifest, error) {
	u := &unstructured.Unstructured{Object: m}
	if u.GetAPIVersion() == "" || u.GetKind() == "" {
		return nil, fmt.Errorf("%w: %s: apiVersion and kind must be set", ErrManifest, src)
	}
	if u.IsList() {
		l, err := u.ToList()
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrManifest, src, err)
		}
		var out []Manifest
		for i := range l.Items {
			ms, err := objects(fmt.Sprintf("%s item %d", src, i+1), l.Items[i].Object)
			if err != nil {
				return nil, err
			}
			out = append(out, ms...)
		}
		return out, nil
	}
	if u.GetName() == "" {
		return nil, fmt.Errorf("%w: %s: %s has no metadata.name", ErrManifest, src, u.GetKind())
	}
	return []Manifest{{Source: src, Object: u}}, nil
}

// kindRank is the order objects are created in: what others refer to
// first (a namespace, the pull secret, manifests, the image set), then
// the cluster, its install, the network configs, the InfraEnv and the
// hosts; unknown kinds last. Deletion goes the other way.
func kindRank(kind string) int {
	switch kind {
	case "Namespace":
		return 0
	case "Secret", "ConfigMap":
		return 1
	case "ClusterImageSet", "AgentServiceConfig":
		return 2
	case "ClusterDeployment":
		return 3
	case "AgentClusterInstall":
		return 4
	case "NMStateConfig":
		return 5
	case "InfraEnv":
		return 6
	case "BareMetalHost":
		return 7
	case "Agent":
		return 8
	}
	return 9
}

// SortForCreate orders ms as kindRank says, keeping the files' order
// within a kind.
func SortForCreate(ms []Manifest) {
	sort.SliceStable(ms, func(i, j int) bool { return kindRank(ms[i].Object.GetKind()) < kindRank(ms[j].Object.GetKind()) })
}
