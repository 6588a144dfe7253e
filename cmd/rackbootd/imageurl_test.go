package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// startISODaemon starts a rackbootd whose image set "testbed" has a base
// ISO (baseISO, whose path it returns too) and waits until it is ready.
func startISODaemon(t *testing.T) (*testDaemon, string) {
	t.Helper()
	iso := baseISO(t)
	d := newTestDaemon(t, freePort(t, "tcp"), freePort(t, "udp"))
	d.writeConfig(d.configText("console=ttyS0", "vmlinuz") + fmt.Sprintf(
		"\n[[image_set]]\nname = \"testbed\"\ncpu_arch = \"x86_64\"\nprofile = \"discovery\"\nbase_iso = %q\n", iso))
	d.start(nil)
	d.waitNote("READY=1")
	return d, iso
}

// baseISO builds a small ISO 9660 image with an Ignition embed area
// (coreos/igninfo.json), as a CoreOS live ISO has, with xorriso.
func baseISO(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("xorriso"); err != nil {
		t.Skip("xorriso not installed (Debian package xorriso)")
	}
	dir := t.TempDir()
	writeFile(t, dir, "tree/coreos/igninfo.json", `{"file": "images/ignition.img"}`)
	writeFile(t, dir, "tree/images/ignition.img", strings.Repeat("\x00", 64<<10))
	out := filepath.Join(dir, "base.iso")
	cmd := exec.Command("xorriso", "-as", "mkisofs", "-quiet", "-R", "-J", "-V", "TEST", "-o", out, filepath.Join(dir, "tree"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("xorriso: %v\n%s", err, b)
	}
	return out
}

// downloads/image-url of an infra-env whose image set has a base ISO is,
// as upstream's, the URL of its discovery ISO, which the boot server
// serves with the infra-env's Ignition embedded (a compressed archive in
// the embed area, so the bytes differ from the base ISO's).
func TestImageURLIsTheDiscoveryISO(t *testing.T) {
	d, iso := startISODaemon(t)
	id := d.createInfraEnv("rack")
	code, body := d.call("GET", "/infra-envs/"+id+"/downloads/image-url", "Authorization: Bearer "+d.adminToken(), "")
	var u struct {
		URL string `json:"url"`
	}
	if code != http.StatusOK || json.Unmarshal([]byte(body), &u) != nil ||
		!strings.HasPrefix(u.URL, "http://"+d.httpAddr+"/images/"+id+"/") || !strings.HasSuffix(u.URL, "/discovery.iso") {
		t.Fatalf("image-url: %d %s", code, body)
	}
	res, err := http.Get(u.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	img, err := io.ReadAll(res.Body)
	base, _ := os.ReadFile(iso)
	if err != nil || res.StatusCode != http.StatusOK || len(img) != len(base) || string(img[0x8001:0x8006]) != "CD001" {
		t.Fatalf("GET the ISO: %s, %d bytes (base %d), %v", res.Status, len(img), len(base), err)
	}
	if string(img) == string(base) {
		t.Error("the ISO is the base ISO: no Ignition config was embedded")
	}
}
