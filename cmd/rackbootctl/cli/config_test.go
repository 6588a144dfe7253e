package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/cmd/rackbootctl/cli"
)

// The config file supplies the server and the token; the environment and
// flags override it.
func TestConfigFile(t *testing.T) {
	r := newRig(t)
	url, tok := r.env["RACKBOOT_URL"], r.env["RACKBOOT_TOKEN"]
	delete(r.env, "RACKBOOT_URL")
	delete(r.env, "RACKBOOT_TOKEN")

	home := t.TempDir()
	r.env["HOME"] = home
	dir := filepath.Join(home, ".config", "rackboot")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	tokFile := r.file("admin-token", tok+"\n")
	def := filepath.Join(dir, "rackbootctl.toml")
	if err := os.WriteFile(def, []byte("url = \""+url+"\"\ntoken_file = \""+tokFile+"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.ok("get", "clusters") // url and token file from ~/.config/rackboot/rackbootctl.toml

	r.env["RACKBOOT_URL"] = "http://127.0.0.1:1"
	if res := r.run("get", "clusters"); res.code != cli.ExitError || !strings.Contains(res.stderr, "http://127.0.0.1:1") {
		t.Errorf("RACKBOOT_URL should win over the config file: %+v", res)
	}
	r.ok("get", "clusters", "--url", url) // the flag wins over the environment
	delete(r.env, "RACKBOOT_URL")

	inline := r.file("inline.toml", "url = \""+url+"\"\ntoken = \""+tok+"\"\n")
	r.ok("get", "clusters", "--config", inline)
	if err := os.Chmod(inline, 0o644); err != nil {
		t.Fatal(err)
	}
	if res := r.run("get", "clusters", "--config", inline); res.code != cli.ExitError || !strings.Contains(res.stderr, "chmod 600") {
		t.Errorf("token in a readable config: %+v", res)
	}
	r.env["RACKBOOT_CONFIG"] = r.file("typo.toml", "url = \""+url+"\"\ntokn = \""+tok+"\"\n")
	res := r.run("get", "clusters")
	if res.code != cli.ExitError || !strings.Contains(res.stderr, "unknown keys: tokn") {
		t.Errorf("unknown key: %+v", res)
	}
	r.env["RACKBOOT_CONFIG"] = r.file("broken.toml", "url = \"x\ntoken = \""+tok+"\"\n")
	if res := r.run("get", "clusters"); res.code != cli.ExitError || !strings.Contains(res.stderr, "line 1") {
		t.Errorf("broken config: %+v", res)
	}
	r.env["RACKBOOT_CONFIG"] = filepath.Join(home, "missing.toml")
	if res := r.run("get", "clusters"); res.code != cli.ExitError || !strings.Contains(res.stderr, "missing.toml") {
		t.Errorf("missing named config: %+v", res)
	}
}
