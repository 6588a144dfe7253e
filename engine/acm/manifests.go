package acm

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"slices"
	"sort"

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

// syncManifests stores the manifests of the ACI's ConfigMaps (each data
// key a file of the openshift folder) as the cluster's custom manifests,
// through the domain (its checks), before the installation starts, and,
// as upstream's sync, deletes the cluster's openshift manifests that are
// not in them (a key dropped from a ConfigMap). A missing ConfigMap or a
// bad manifest is an input error.
func syncManifests(ctx context.Context, o Options, in install) error {
	names := manifestRefs(in.aci)
	if len(names) == 0 {
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
		for _, n := range names {
			cm, found := m.Object(engine.ObjectRef{Kind: "ConfigMap", Namespace: in.aci.Namespace, Name: n}.Key())
			if !found {
				missing = n
				return
			}
			var b struct {
				Data map[string]string `json:"data"`
			}
			_ = json.Unmarshal(cm.Body, &b)
			for k, v := range b.Data {
				files[k] = v
			}
		}
	})
	if missing != "" {
		return inputErr("manifests ConfigMap %q not found", missing)
	}
	if !ok || slices.Contains(installing, c.Status) || slices.Contains(stopped, c.Status) {
		return nil
	}
	keys := make([]string, 0, len(files))
	for k := range files {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, mf := range c.Manifests {
		if _, ok := files[mf.FileName]; ok || mf.Folder != manifestFolder {
			continue
		}
		if err := o.Domain.DeleteManifest(ctx, c.ID, mf.Folder, mf.FileName); err != nil {
			return err
		}
		o.Log.Info("manifest dropped from the ACI's ConfigMaps deleted", "cluster", c.ID, "file", mf.FileName)
	}
	for _, k := range keys {
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
