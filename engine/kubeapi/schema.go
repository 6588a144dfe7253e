package kubeapi

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// schemaFiles hold the kinds' schemas in rackboot's own compact form (see
// schemas/README.md and parseSchemas): the field names, types, enums and
// required fields are upstream's API (what users' YAML is written
// against), the descriptions rackboot's.
//
//go:embed schemas/*.schema
var schemaFiles embed.FS

// loadSchemas reads the embedded schema files into each served resource's
// Schema. A file naming a kind the server does not serve, or a kind twice,
// is an error (the files and resources() drifted apart).
func loadSchemas(res []*Resource) error {
	byGVK := map[string]*Resource{}
	for _, r := range res {
		byGVK[r.GroupVersion()+" "+r.Kind] = r
	}
	files, err := fs.Glob(schemaFiles, "schemas/*.schema")
	if err != nil {
		return fmt.Errorf("kubeapi: listing the schemas: %w", err)
	}
	for _, f := range files {
		b, err := schemaFiles.ReadFile(f)
		if err != nil {
			return fmt.Errorf("kubeapi: reading %s: %w", f, err)
		}
		kinds, err := parseSchemas(string(b))
		if err != nil {
			return fmt.Errorf("kubeapi: %s: %w", f, err)
		}
		for _, k := range kinds {
			r := byGVK[k.gv+" "+k.kind]
			if r == nil {
				return fmt.Errorf("kubeapi: %s: %s %s is not a served kind", f, k.gv, k.kind)
			}
			if r.Schema != nil {
				return fmt.Errorf("kubeapi: %s: %s %s has two schemas", f, k.gv, k.kind)
			}
			r.Schema = k.schema
		}
	}
	for _, r := range res {
		r.types = newTypeConverter(r.Kind, r.Schema)
	}
	return nil
}

// schemaName is the components.schemas key kube-apiserver gives a kind:
// a CRD's group reversed, the version, the kind
// (io.openshift.agent-install.v1beta1.InfraEnv); io.k8s.api.core.v1.Secret
// for the core group.
func schemaName(r *Resource) string {
	if r.Group == "" {
		return "io.k8s.api.core." + r.Version + "." + r.Kind
	}
	parts := strings.Split(r.Group, ".")
	slices.Reverse(parts)
	return strings.Join(parts, ".") + "." + r.Version + "." + r.Kind
}

// objectMetaFields are metav1.ObjectMeta's JSON fields: what a manifest's
// metadata may hold.
var objectMetaFields = []string{
	"name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
	"creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations",
	"ownerReferences", "finalizers", "managedFields",
}

// metadataSchema is what the served schema says of metadata (kube-apiserver
// refers to ObjectMeta's definition; a description is enough for kubectl
// explain, and fieldcheck.go checks metadata's keys itself).
func metadataSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"description": "The object's name, namespace, labels, annotations, owners and finalizers, and what " +
			"the server sets: uid, resourceVersion, generation, creationTimestamp, deletionTimestamp. " +
			"See https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
	}
}

// typeMetaSchemas are apiVersion and kind, which every kind has.
func typeMetaSchemas() map[string]any {
	return map[string]any{
		"apiVersion": map[string]any{"type": "string",
			"description": "The group and version of the schema the object is written in (group/version, or v1 for the core kinds)."},
		"kind": map[string]any{"type": "string",
			"description": "The object's kind, in CamelCase, as the group version serves it."},
	}
}
