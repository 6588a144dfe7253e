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
// kubeadmin password into the Secrets <cd>-admin-kubeconfig and
// <cd>-admin-password (sealed as the kube API seals Secret values) and
// sets the ClusterDeployment's spec.installed and spec.clusterMetadata
// naming them, as upstream does (a generator of user configs makes
// neither: then only clusterID and infraID).
func credentials(ctx context.Context, o Options, in install) error {
	if !in.cdOK || in.cdSpec.Installed {
		return nil
	}
	var (
		c          engine.Cluster
		kc, pw     []byte
		ok         bool
		kerr, perr error
	)
	o.Store.Read(func(m *engine.Model) {
		if c, ok = m.Cluster(in.aci.UID); !ok || c.Status != engine.ClusterStatusInstalled {
			ok = false
			return
		}
		kc, _, kerr = m.SecretValue(engine.InstallSecretName(c.ID), engine.ArtifactKubeconfig)
		pw, _, perr = m.SecretValue(engine.InstallSecretName(c.ID), engine.ArtifactKubeadminPassword)
	})
	if !ok {
		return nil
	}
	if err := errors.Join(kerr, perr); err != nil {
		return fmt.Errorf("open the install artifacts: %w", err)
	}
	ns, cd := in.cd.Namespace, in.cd.Name
	kcName, pwName := cd+"-admin-kubeconfig", cd+"-admin-password"
	md := map[string]any{"clusterID": c.ID, "infraID": c.ID}
	if len(kc) > 0 { // a generator of user configs makes none
		if err := putSecret(ctx, o, ns, kcName, map[string][]byte{"kubeconfig": kc}); err != nil {
			return err
		}
		md["adminKubeconfigSecretRef"] = map[string]any{"name": kcName}
	}
	if len(pw) > 0 {
		if err := putSecret(ctx, o, ns, pwName, map[string][]byte{"username": []byte("kubeadmin"), "password": pw}); err != nil {
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

// putSecret creates (or replaces) the Opaque Secret ns/name with data,
// each value sealed under its name and key.
func putSecret(ctx context.Context, o Options, ns, name string, data map[string][]byte) error {
	ref := engine.ObjectRef{Kind: "Secret", Namespace: ns, Name: name}
	sealed := map[string]string{}
	for k, v := range data {
		b, err := o.Sealer.Seal(ref.SealName(), k, v)
		if err != nil {
			return fmt.Errorf("seal %s: %w", name, err)
		}
		sealed[k] = base64.StdEncoding.EncodeToString(b)
	}
	body, err := json.Marshal(map[string]any{"metadata": map[string]any{"name": name, "namespace": ns},
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
