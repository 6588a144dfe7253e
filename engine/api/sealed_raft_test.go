package api

import (
	"bytes"
	"context"
	"encoding/base64"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/clusters"
	"github.com/rackboot/rackboot/engine/install"
	"github.com/rackboot/rackboot/engine/models"
)

// Secret values of TestSecretsSealedAtRest, each distinctive.
const (
	sealedPullSecret = `{"auths":{"quay.io":{"auth":"U2VhbGVkLVB1bGwtU2VjcmV0LTc3MQ=="}}}`
	sealedBMCPass    = "Sealed-Bmc-Pa55word-412"
	sealedKubeconfig = "apiVersion: v1\nkind: Config\nclusters: [{name: sealed-kubeconfig-5519}]\n"
	sealedKubeadmin  = "Sealed-kubeadmin-Pa55-8830"
)

// Every secret is sealed at rest, in the log and in snapshots: with an
// infra-env's pull secret, a BareMetalHost's password, a rotated signing
// key ring and a cluster's install credentials stored and a snapshot
// taken, no file under data_dir holds one of them (nor the PEM header of
// a signing key), as strings(1) would show them; after a restart the
// domain reads every one of them in clear.
func TestSecretsSealedAtRest(t *testing.T) {
	dir := t.TempDir()
	e, st := newRaftBMHEnv(t, dir)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	c := e.createCluster()
	var ie models.InfraEnv
	e.must(adminCred(), 201, "POST", "/infra-envs", map[string]any{"name": "sealed", "pull_secret": sealedPullSecret}).decode(t, &ie)
	b := sno1()
	b["credentials"] = map[string]string{"username": "root", "password": sealedBMCPass}
	e.must(adminCred(), 201, "POST", "/baremetal-hosts", b)
	ring, err := engine.UpdateKeyRing(ctx, st, func(k *auth.KeyRing) error { _, err := k.Rotate(); return err })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Apply(ctx, &engine.PutSecret{Secret: engine.Secret{Name: engine.InstallSecretName(c.ID), Type: "install-artifacts",
		Data: map[string][]byte{engine.ArtifactKubeconfig: []byte(sealedKubeconfig), engine.ArtifactKubeadminPassword: []byte(sealedKubeadmin)}}}); err != nil {
		t.Fatal(err)
	}
	if err := st.Snapshot(); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	scanForSecrets(t, dir, sealedPullSecret, "U2VhbGVkLVB1bGwtU2VjcmV0LTc3MQ", sealedBMCPass, "sealed-kubeconfig-5519",
		sealedKubeadmin, "-----BEGIN PRIVATE KEY-----")

	st = openSealedStore(t, dir, testSealer(t))
	k, err := engine.LoadKeyRing(ctx, st)
	if err != nil || k.ActiveKID() != ring.ActiveKID() {
		t.Fatalf("key ring after restart: %v, active %v want %s", err, k, ring.ActiveKID())
	}
	st.Read(func(m *engine.Model) {
		ie2, _ := m.InfraEnv(ie.ID)
		if ps, _ := m.PullSecret(ie2.PullSecretRef); ps != sealedPullSecret {
			t.Errorf("pull secret after restart: %.20q", ps)
		}
		if pw, _, err := m.SecretValue("sno1-bmc-secret", engine.BMCSecretPassword); err != nil || string(pw) != sealedBMCPass {
			t.Errorf("BMC password after restart: %v", err)
		}
		a := install.Artifacts(m, c.ID)
		if a == nil || string(a.Kubeconfig) != sealedKubeconfig || string(a.KubeadminPassword) != sealedKubeadmin {
			t.Errorf("install credentials after restart: %v", a != nil)
		}
	})
}

// scanForSecrets fails for every file under dir holding one of secrets,
// in clear or base64-encoded (as JSON encodes bytes), and when it found no
// raft snapshot or log to scan.
func scanForSecrets(t *testing.T, dir string, secrets ...string) {
	t.Helper()
	var snapshots, logs int
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		switch {
		case d.Name() == "state.bin":
			snapshots++
		case d.Name() == "raft.db":
			logs++
		}
		for _, s := range secrets {
			for _, form := range append([]string{s}, base64Forms(s)...) {
				if bytes.Contains(data, []byte(form)) {
					t.Errorf("%s holds %.24q (as %.16q)", p, s, form)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if snapshots == 0 || logs == 0 {
		t.Fatalf("scanned %d snapshots and %d logs under %s: not where the state is", snapshots, logs, dir)
	}
}

// base64Forms are the base64 runs s shows wherever it starts in an
// encoded value: the characters that only s's bytes decide, for each of
// the three alignments.
func base64Forms(s string) []string {
	var out []string
	for pad := 0; pad < 3; pad++ {
		enc := base64.StdEncoding.EncodeToString(append(make([]byte, pad), s...))
		skip := 0
		if pad > 0 {
			skip = 4
		}
		if len(enc)-4 > skip+8 {
			out = append(out, enc[skip:len(enc)-4])
		}
	}
	return out
}

// A secret an older rackboot stored in clear reads as it is, and
// SealStoredSecrets (rackbootd runs it when it leads) seals it once.
func TestClearSecretsOfAnOlderRackbootAreSealed(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	old := openSealedStore(t, dir, nil) // an older rackboot seals nothing
	if _, err := old.Apply(ctx, clusters.PutPullSecret("ps", sealedPullSecret)); err != nil {
		t.Fatal(err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	sealer := testSealer(t)
	st := openSealedStore(t, dir, sealer)
	read := func() (ps string, sealed bool) {
		st.Read(func(m *engine.Model) {
			ps, _ = m.PullSecret("ps")
			s, _ := m.Secret("ps")
			sealed = engine.IsSealed(s.Data[engine.PullSecretKey])
		})
		return ps, sealed
	}
	if ps, sealed := read(); ps != sealedPullSecret || sealed {
		t.Fatalf("clear pull secret of an older rackboot reads %.20q (sealed %t)", ps, sealed)
	}
	for i, want := range []int{1, 0} {
		if n, err := engine.SealStoredSecrets(ctx, st, sealer); err != nil || n != want {
			t.Fatalf("SealStoredSecrets #%d = %d, %v; want %d", i+1, n, err, want)
		}
	}
	if ps, sealed := read(); ps != sealedPullSecret || !sealed {
		t.Fatalf("after sealing: %.20q (sealed %t)", ps, sealed)
	}
}
