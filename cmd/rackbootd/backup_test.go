package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rackboot/rackboot/cluster"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/backup"
	"github.com/rackboot/rackboot/engine/enginetest"
)

// ctlBuild builds rackbootctl once for the tests that run it.
var ctlBuild = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(filepath.Dir(rackbootdBin), "rackbootctl")
	out, err := exec.Command("go", "build", "-o", bin, "../rackbootctl").CombinedOutput()
	if err != nil {
		return "", errors.New(string(out))
	}
	return bin, nil
})

// ctl runs rackbootctl with args and returns its output and exit code.
func ctl(t *testing.T, args ...string) (string, int) {
	t.Helper()
	bin, err := ctlBuild()
	if err != nil {
		t.Fatalf("building rackbootctl: %v", err)
	}
	cmd := exec.Command(bin, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return out.String(), exit.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), 0
}

// takeBackup runs rackbootctl backup against d into dir/name.
func takeBackup(t *testing.T, d *testDaemon, dir, name string) string {
	t.Helper()
	file := filepath.Join(dir, name)
	out, code := ctl(t, "--url", "http://"+d.httpAddr, "--token", d.adminToken(), "backup", file)
	if code != 0 || !strings.Contains(out, "backup of node") {
		t.Fatalf("rackbootctl backup: exit %d: %s", code, out)
	}
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup file: %v %v", fi, err)
	}
	return file
}

// createBMH creates a BareMetalHost whose credentials Secret holds
// password, through d's API.
func createBMH(t *testing.T, d *testDaemon, name, password string) {
	t.Helper()
	code, body := d.call("POST", "/baremetal-hosts", "Authorization: Bearer "+d.adminToken(), `{"metadata":{"name":"`+name+`"},`+
		`"spec":{"online":false,"bootMACAddress":"52:54:00:00:00:01","bmc":{"address":"redfish+http://127.0.0.1:9/redfish/v1/Systems/1",`+
		`"credentialsName":"`+name+`-bmc"}},"credentials":{"username":"root","password":"`+password+`"}}`)
	if code != http.StatusCreated {
		t.Fatalf("create BMH: %d %s", code, body)
	}
}

// treeOf maps every file under dir to a hash of its contents (nil: no
// such directory).
func treeOf(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	tree := map[string][32]byte{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		tree[p] = sha256.Sum256(b)
		return err
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// restoreRefused runs rackbootd restore and checks that it fails saying
// want, leaving data_dir as it was.
func restoreRefused(t *testing.T, d *testDaemon, file, want string) {
	t.Helper()
	state := filepath.Join(d.dir, "state")
	before := treeOf(t, state)
	_, stderr, code := runBinary(t, d.dir, "restore", "--config", "rackboot.toml", file)
	if code != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "nothing was restored") {
		t.Errorf("restore of %s: exit %d, %q; want %q", filepath.Base(file), code, stderr, want)
	}
	after := treeOf(t, state)
	if len(after) != len(before) {
		t.Errorf("a refused restore changed data_dir: %d files, then %d", len(before), len(after))
	}
	for p, h := range before {
		if after[p] != h {
			t.Errorf("a refused restore changed %s", p)
		}
	}
}

// offlineState opens a stopped appliance's data_dir in this process and
// returns its state's dump and the unsealed BMC password of secret.
func offlineState(t *testing.T, dataDir, keyPath, secret string) (dump []byte, password string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	st, err := cluster.Open(ctx, cluster.Config{DataDir: dataDir})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var sec engine.Secret
	st.Read(func(m *engine.Model) { dump, sec = enginetest.Dump(m.Clone()), mustSecret(m, secret) })
	sealer, err := engine.LoadSealer(keyPath)
	if err != nil {
		t.Fatal(err)
	}
	pw, err := sealer.Open(sec.Name, engine.BMCSecretPassword, sec.Data[engine.BMCSecretPassword])
	if err != nil {
		t.Fatalf("the BMC password of %s does not unseal: %v", secret, err)
	}
	return dump, string(pw)
}

func mustSecret(m *engine.Model, name string) engine.Secret {
	s, _ := m.Secret(name)
	return s
}

// damaged writes the backup file's damaged copies next to it: one byte
// flipped, cut short, and another version.
func damaged(t *testing.T, file string) map[string]string {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	flipped := bytes.Clone(b)
	flipped[len(b)-len(b)/3] ^= 1
	dir := filepath.Dir(file)
	return map[string]string{
		"checksum mismatch": writeFile(t, dir, "flipped.backup", string(flipped)),
		"truncated":         writeFile(t, dir, "truncated.backup", string(b[:len(b)*2/3])),
		"format version 9":  writeFile(t, dir, "newer.backup", strings.Replace(string(b), `"version":1`, `"version":9`, 1)),
		"not a valid rackboot backup": writeFile(t, dir, "raft.db",
			"\x00\x00\x00\x00bolt"),
	}
}

// A backup of a running appliance (rackbootctl backup), restored with
// rackbootd restore into a new appliance's empty data_dir holding the old
// secrets.key, gives the same state: the infra-env and the BareMetalHost
// through the API, and the BMC password still unseals. A damaged backup,
// a missing or wrong key, a data_dir with state are refused and change
// nothing.
func TestBackupRestore(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two rackbootd processes")
	}
	src := startDaemon(t)
	src.waitNote("READY=1")
	ie := src.createInfraEnv("kept")
	const password = "Backup-BMC-pw-51c7"
	createBMH(t, src, "node-1", password)
	resp, err := http.Get("http://" + src.httpAddr + backup.Path)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a backup without the admin token: %s", resp.Status)
	}
	file := takeBackup(t, src, t.TempDir(), "rack.backup")
	if b, _ := os.ReadFile(file); bytes.Contains(b, []byte(password)) || !bytes.Contains(b, []byte("node-1-bmc")) {
		t.Error("the backup holds the BMC password in clear, or no credentials Secret")
	}
	srcKey := filepath.Join(src.dir, "state", engine.SealKeyFile)
	src.stop()

	dst := newTestDaemon(t, freePort(t, "tcp"), freePort(t, "udp"))
	dst.writeConfig(dst.configText("console=ttyS0", "vmlinuz"))
	for want, f := range damaged(t, file) {
		restoreRefused(t, dst, f, want)
	}
	restoreRefused(t, dst, file, "key that opens them is needed at")
	key := writeFile(t, filepath.Join(dst.dir, "state"), engine.SealKeyFile, strings.Repeat("k", 32))
	os.Chmod(key, 0o600)
	restoreRefused(t, dst, file, "do not open with")
	copyFile(t, srcKey, key)

	out, stderr, code := runBinary(t, dst.dir, "restore", "--config", "rackboot.toml", file)
	if code != 0 {
		t.Fatalf("restore: exit %d: %s", code, stderr)
	}
	t.Logf("%s", out)
	restoreRefused(t, dst, file, "not empty")
	dump, pw := offlineState(t, filepath.Join(dst.dir, "state"), key, "node-1-bmc")
	if pw != password {
		t.Error("the restored BMC password differs")
	}
	want, _ := offlineStateOf(t, file)
	if !bytes.Equal(dump, want) {
		t.Errorf("restored state:\n%s\nwant the backup's:\n%s", dump, want)
	}

	dst.start(nil)
	dst.waitNote("READY=1")
	auth := "Authorization: Bearer " + dst.adminToken()
	if code, body := dst.call("GET", "/infra-envs/"+ie, auth, ""); code != 200 || !strings.Contains(body, `"kept"`) {
		t.Errorf("the restored infra-env: %d %s", code, body)
	}
	if code, body := dst.call("GET", "/baremetal-hosts/node-1", auth, ""); code != 200 || strings.Contains(body, password) {
		t.Errorf("the restored BareMetalHost: %d %s", code, body)
	}
	dst.createInfraEnv("after-restore")
}

// offlineStateOf is the dump of a backup file's state.
func offlineStateOf(t *testing.T, file string) ([]byte, error) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, m, err := backup.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	return enginetest.Dump(m), nil
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
