package acm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/rackboot/rackboot/engine"
)

// credentials, once in's cluster is installed, writes its kubeconfig and
// kubeadmin password (the Domain's AdminCredentials, the REST API's
// credentials) into the Secrets <cd>-admin-kubeconfig and
// <cd>-admin-password (sealed as the kube API seals Secret values) and
// sets the ClusterDeployment's spec.installed and spec.clusterMetadata
// naming them, as upstream does (a generator of user configs makes
// neither: then only clusterID and infraID).
func credentials(ctx context.Context, o Options, in install) error {
	if !in.cdOK || in.cdSpec.Installed {
		return nil
	}
	var (
		c  engine.Cluster
		ok bool
	)
	o.Store.Read(func(m *engine.Model) {
		c, ok = m.Cluster(in.aci.UID)
		ok = ok && c.Status == engine.ClusterStatusInstalled
	})
	if !ok {
		return nil
	}
	kc, pw, err := o.Domain.AdminCredentials(c.ID)
	if err != nil {
		return fmt.Errorf("admin credentials: %w", err)
	}
	ns, cd := in.cd.Namespace, in.cd.Name
	kcName, pwName := cd+"-admin-kubeconfig", cd+"-admin-password"
	md := map[string]any{"clusterID": c.ID, "infraID": c.ID}
	if len(kc) > 0 { // a generator of user configs makes none
		if err := putSecret(ctx, o, in.cd, kcName, map[string][]byte{"kubeconfig": kc}); err != nil {
			return err
		}
		md["adminKubeconfigSecretRef"] = map[string]any{"name": kcName}
	}
	if len(pw) > 0 {
		if err := putSecret(ctx, o, in.cd, pwName, map[string][]byte{"username": []byte("kubeadmin"), "password": pw}); err != nil {
			return err
		}
		md["adminPasswordSecretRef"] = map[string]any{"name": pwName}
	}
	var body map[string]any
	if err := json.Unmarshal(in.cd.Body, &body); err != nil {
		return err
	}
	sp, _ := body["spec"].(map[string]any)
	if sp == nil {
		sp = map[string]any{}
	}
	sp["installed"] = true
	sp["clusterMetadata"] = md
	body["spec"] = sp
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	obj := in.cd
	obj.Body, obj.Generation = b, obj.Generation+1
	if _, err := o.Store.Apply(ctx, &engine.PutObject{Object: obj, IfRevision: obj.Revision}); err != nil &&
		!errors.Is(err, engine.ErrConflict) {
		return fmt.Errorf("ClusterDeployment %s/%s: %w", ns, cd, err)
	}
	o.Log.Info("cluster credentials written", "cluster", c.ID, "name", ns+"/"+cd)
	return nil
}

// putSecret creates (or replaces) the Opaque Secret name in owner's
// namespace with data, each value sealed under its name and key, owned by
// owner (the ClusterDeployment) as upstream's are: deleting the owner
// deletes it (engine/kubegc, the ownerReferences garbage collector).
func putSecret(ctx context.Context, o Options, owner engine.Object, name string, data map[string][]byte) error {
	ns := owner.Namespace
	ref := engine.ObjectRef{Kind: "Secret", Namespace: ns, Name: name}
	sealed := map[string]string{}
	for k, v := range data {
		b, err := o.Sealer.Seal(ref.SealName(), k, v)
		if err != nil {
			return fmt.Errorf("seal %s: %w", name, err)
		}
		sealed[k] = base64.StdEncoding.EncodeToString(b)
	}
	owners := []ownerReference{{APIVersion: owner.Group + "/" + versionHive, Kind: owner.Kind, Name: owner.Name,
		UID: owner.UID, Controller: true, BlockOwnerDeletion: true}}
	body, err := json.Marshal(map[string]any{"metadata": map[string]any{"name": name, "namespace": ns, "ownerReferences": owners},
		"type": "Opaque", "data": sealed})
	if err != nil {
		return err
	}
	var cur engine.Object
	var exists bool
	o.Store.Read(func(m *engine.Model) { cur, exists = m.Object(ref.Key()) })
	obj := engine.Object{ObjectRef: ref, UID: newUID(), Body: body}
	if exists {
		obj.UID, obj.Revision = cur.UID, cur.Revision
		_, err = o.Store.Apply(ctx, &engine.PutObject{Object: obj, IfRevision: cur.Revision})
	} else {
		_, err = o.Store.Apply(ctx, &engine.PutObject{Object: obj, Create: true})
	}
	if err != nil {
		return fmt.Errorf("Secret %s/%s: %w", ns, name, err)
	}
	return nil
}

// versionHive is the version of hive.openshift.io's kinds.
const versionHive = "v1"

// ownerReference is metadata.ownerReferences' item.
type ownerReference struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	UID                string `json:"uid"`
	Controller         bool   `json:"controller,omitempty"`
	BlockOwnerDeletion bool   `json:"blockOwnerDeletion,omitempty"`
}
