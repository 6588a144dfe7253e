package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// rackbootd seals every secret at rest: after an infra-env with a pull
// secret, a BareMetalHost with a password and a signing key rotation, no
// file under data_dir holds the pull secret, the password or a PEM private
// key, in clear or base64-encoded (strings(1) would show either).
func TestDaemonSealsSecretsAtRest(t *testing.T) {
	d := startDaemon(t)
	d.waitNote("READY=1")
	const (
		auth       = "U2VhbGVkLWluLWRhZW1vbi0zMzE4"
		pullSecret = `{"auths":{"registry.example.com":{"auth":"` + auth + `"}}}`
		password   = "Daemon-Sealed-BMC-pw-6071"
	)
	admin := "Authorization: Bearer " + d.adminToken()
	ps, _ := json.Marshal(pullSecret)
	if code, body := d.call("POST", "/infra-envs", admin, `{"name":"sealed","pull_secret":`+string(ps)+`}`); code != http.StatusCreated {
		t.Fatalf("create infra-env: %d %s", code, body)
	}
	if code, body := d.call("POST", "/baremetal-hosts", admin, `{"metadata":{"name":"node-1"},"spec":{"online":false,`+
		`"bmc":{"address":"redfish+http://127.0.0.1:9/redfish/v1/Systems/1","credentialsName":"node-1-bmc"}},`+
		`"credentials":{"username":"root","password":"`+password+`"}}`); code != http.StatusCreated {
		t.Fatalf("create BMH: %d %s", code, body)
	}
	if code, body := d.call("POST", "/signing-keys/actions/rotate", admin, ""); code != http.StatusOK {
		t.Fatalf("rotate: %d %s", code, body)
	}
	d.stop()
	var raftDB bool
	err := filepath.Walk(filepath.Join(d.dir, "state"), func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		raftDB = raftDB || fi.Name() == "raft.db"
		for _, s := range []string{pullSecret, auth, password, "-----BEGIN PRIVATE KEY-----"} {
			for _, form := range append([]string{s}, base64Runs(s)...) {
				if bytes.Contains(b, []byte(form)) {
					t.Errorf("%s holds %.24q (as %.16q)", p, s, form)
				}
			}
		}
		return nil
	})
	if err != nil || !raftDB {
		t.Fatalf("scanning data_dir: %v (raft.db seen: %t)", err, raftDB)
	}
}

// base64Runs are the base64 characters that only s's bytes decide,
// wherever s starts in an encoded value (three alignments).
func base64Runs(s string) []string {
	var out []string
	for pad := 0; pad < 3; pad++ {
		enc := base64.StdEncoding.EncodeToString(append(make([]byte, pad), s...))
		skip := min(pad, 1) * 4
		if len(enc)-4 > skip+8 {
			out = append(out, enc[skip:len(enc)-4])
		}
	}
	return out
}
