package main

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The daemon wires the BareMetalHost parts: a 0600 sealing key in
// data_dir, BMC credentials stored sealed (the raft state under data_dir
// never holds the password, neither does the log), and the discovery ISO
// route on the HTTP server refusing a bad token.
func TestBareMetalHostWiring(t *testing.T) {
	d := startDaemon(t)
	d.waitNote("READY=1")
	fi, err := os.Stat(filepath.Join(d.dir, "state", "secrets.key"))
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Size() != 32 {
		t.Fatalf("secrets.key: %v %v", fi, err)
	}
	const password = "Wiring-BMC-pw-93b1"
	auth := "Authorization: Bearer " + d.adminToken()
	ie := d.createInfraEnv("rack")
	code, body := d.call("POST", "/baremetal-hosts", auth, `{"metadata":{"name":"node-1","labels":{"infraenvs.agent-install.openshift.io":"rack"}},`+
		`"spec":{"online":false,"bootMACAddress":"52:54:00:00:00:01","bmc":{"address":"redfish+http://127.0.0.1:9/redfish/v1/Systems/1",`+
		`"credentialsName":"node-1-bmc"}},"credentials":{"username":"root","password":"`+password+`"}}`)
	if code != http.StatusCreated || strings.Contains(body, password) {
		t.Fatalf("create BMH: %d %s", code, body)
	}
	resp, err := http.Get("http://" + d.httpAddr + "/images/" + ie + "/not-a-token/discovery.iso")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("discovery ISO with a bad token: %d, want 403", resp.StatusCode)
	}
	d.stop()
	sawSecret := false
	err = filepath.Walk(filepath.Join(d.dir, "state"), func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte(password)) {
			t.Errorf("%s holds the BMC password in clear", p)
		}
		sawSecret = sawSecret || bytes.Contains(b, []byte("node-1-bmc"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if !sawSecret {
		t.Error("no file under data_dir holds the secret's name: the state was not where this test looked")
	}
	if strings.Contains(d.stderr.String(), password) {
		t.Error("the log shows the BMC password")
	}
}
