package acm

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// manifestFolder is where upstream puts the manifests of an ACI's
// ConfigMaps.
const manifestFolder = "openshift"

// manifestRefs are the ConfigMaps an ACI names: manifestsConfigMapRefs,
// else the deprecated manifestsConfigMapRef.
func manifestRefs(obj engine.Object) []string {
	var s struct {
		Refs []ref `json:"manifestsConfigMapRefs"`
		Ref  *ref  `json:"manifestsConfigMapRef"`
	}
	_ = decodeSpec(obj, &s)
	var out []string
	for _, r := range s.Refs {
		out = append(out, r.Name)
	}
	if len(out) == 0 && s.Ref != nil && s.Ref.Name != "" {
		out = append(out, s.Ref.Name)
	}
	return out
}

// annotationManifests records on the ACI the file names of the openshift
// manifests its ConfigMaps made (comma-separated, sorted), so that they
// can be deleted once the ACI names no ConfigMap any more.
const annotationManifests = "rackboot.io/configmap-manifests"

// syncManifests stores the manifests of the ACI's ConfigMaps (each data
// key a file of the openshift folder) as the cluster's custom manifests,
// through the domain (its checks), before the installation starts, and,
// as upstream's sync, deletes the cluster's openshift manifests that are
// not in them (a key dropped from a ConfigMap). The ACI records which it
// made (annotationManifests): when it names no ConfigMap any more, those
// are deleted (upstream deletes every manifest then; rackboot keeps the
// ones the REST API stored). A missing ConfigMap or a bad manifest is an
// input error.
func syncManifests(ctx context.Context, o Options, in install) error {
	names := manifestRefs(in.aci)
	made := madeManifests(in.aci)
	if len(names) == 0 && len(made) == 0 {
		return nil
	}
	var (
		c       engine.Cluster
		ok      bool
		missing string
		files   = map[string]string{}
	)
	o.Store.Read(func(m *engine.Model) {
		c, ok = m.Cluster(in.aci.UID)
		missing = configMapFiles(m, in.aci.Namespace, names, files)
	})
	if missing != "" {
		return inputErr("manifests ConfigMap %q not found", missing)
	}
	if !ok || slices.Contains(installing, c.Status) || slices.Contains(stopped, c.Status) {
		return nil
	}
	if len(names) == 0 {
		return dropManifests(ctx, o, in, c, made)
	}
	if err := storeManifests(ctx, o, c, files); err != nil {
		return err
	}
	keys := slices.Sorted(maps.Keys(files))
	if slices.Equal(keys, made) {
		return nil
	}
	return markManifests(ctx, o, in, keys)
}

// configMapFiles adds the data of ConfigMaps names of namespace ns to
// files, and returns the first missing one ("": none).
func configMapFiles(m *engine.Model, ns string, names []string, files map[string]string) string {
	for _, n := range names {
		cm, found := m.Object(engine.ObjectRef{Kind: "ConfigMap", Namespace: ns, Name: n}.Key())
		if !found {
			return n
		}
		var b struct {
			Data map[string]string `json:"data"`
		}
		_ = json.Unmarshal(cm.Body, &b)
		for k, v := range b.Data {
			files[k] = v
		}
	}
	return ""
}

// storeManifests makes c's openshift manifests files: those not in files
// deleted, the others stored unless stored already.
func storeManifests(ctx context.Context, o Options, c engine.Cluster, files map[string]string) error {
	for _, mf := range c.Manifests {
		if _, ok := files[mf.FileName]; ok || mf.Folder != manifestFolder {
			continue
		}
		if err := o.Domain.DeleteManifest(ctx, c.ID, mf.Folder, mf.FileName); err != nil {
			return err
		}
		o.Log.Info("manifest dropped from the ACI's ConfigMaps deleted", "cluster", c.ID, "file", mf.FileName)
	}
	for _, k := range slices.Sorted(maps.Keys(files)) {
		if slices.ContainsFunc(c.Manifests, func(mf engine.Manifest) bool {
			return mf.Folder == manifestFolder && mf.FileName == k && bytes.Equal(mf.Content, []byte(files[k]))
		}) {
			continue
		}
		p := models.CreateManifestParams{Folder: manifestFolder, FileName: k, Content: base64.StdEncoding.EncodeToString([]byte(files[k]))}
		if err := o.Domain.PutManifest(ctx, c.ID, p); err != nil {
			return err
		}
		o.Log.Info("manifest of the ACI's ConfigMap stored", "cluster", c.ID, "file", k)
	}
	return nil
}

// dropManifests deletes the openshift manifests of c that the ACI's
// ConfigMaps made (made), the ACI naming none any more, and forgets them.
func dropManifests(ctx context.Context, o Options, in install, c engine.Cluster, made []string) error {
	for _, mf := range c.Manifests {
		if mf.Folder != manifestFolder || !slices.Contains(made, mf.FileName) {
			continue
		}
		if err := o.Domain.DeleteManifest(ctx, c.ID, mf.Folder, mf.FileName); err != nil {
			return err
		}
		o.Log.Info("manifest of a ConfigMap the ACI no longer names deleted", "cluster", c.ID, "file", mf.FileName)
	}
	return markManifests(ctx, o, in, nil)
}

// madeManifests is the ACI's annotationManifests.
func madeManifests(aci engine.Object) []string {
	var b struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(aci.Body, &b)
	if v := b.Metadata.Annotations[annotationManifests]; v != "" {
		return strings.Split(v, ",")
	}
	return nil
}

// markManifests records files (none: the annotation removed) as the
// manifests the ACI's ConfigMaps made.
func markManifests(ctx context.Context, o Options, in install, files []string) error {
	return putAnnotation(ctx, o, in.aci, annotationManifests, strings.Join(files, ","))
}
