package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/cmd/rackbootd/internal/config"
	"github.com/rackboot/rackboot/engine"
)

// imageSetInstall copies every install setting of a configured image set.
func TestImageSetInstallCopied(t *testing.T) {
	is := imageSet(config.ImageSet{Name: "os", Profile: "p", Install: config.ImageSetInstall{
		DiskImage: "/d.img", DiskImageSHA256: "ab", DiskImageSize: 9, Generator: "openshift-install",
		OpenShiftInstall: "/bin/oi", RoleIgnitionDir: "/r", ReleaseImage: "quay.io/x:1", KernelSHA256: "k", ISOSHA256: "i"}})
	want := engine.ImageSet{Name: "os", Profile: "p", Source: engine.ImageSetSourceConfig, ReleaseImage: "quay.io/x:1",
		DiskImage: engine.DiskImage{Path: "/d.img", SHA256: "ab", Size: 9}, Generator: "openshift-install",
		OpenShiftInstall: "/bin/oi", RoleIgnitionDir: "/r", Discovery: engine.DiscoveryArtifacts{KernelSHA256: "k", ISOSHA256: "i"}}
	if !sameImageSet(is, want) {
		t.Errorf("image set\n got %+v\nwant %+v", is, want)
	}
}

// rackbootd serves the disk image of an [[image_set]] (its sha256 computed
// at load is the ETag), a cluster created through the API gets that image
// set, and installing a cluster that is not ready is refused with its
// failing validations.
func TestDiskImageAndInstallAPI(t *testing.T) {
	d := newTestDaemon(t, freePort(t, "tcp"), freePort(t, "udp"))
	disk := []byte(strings.Repeat("rackboot disk image ", 5000))
	writeFile(t, d.dir, "disk.img", string(disk))
	if err := os.MkdirAll(filepath.Join(d.dir, "roles"), 0o755); err != nil {
		t.Fatal(err)
	}
	d.writeConfig(d.configText("console=ttyS0", "vmlinuz") + `
[engine]
install_timeout = "30m"

[[image_set]]
name = "testos"
version = "4.17.0"
profile = "discovery"
disk_image = "disk.img"
role_ignition_dir = "roles"
`)
	d.start(nil)
	d.waitNote("READY=1")
	res, err := http.Get("http://" + d.httpAddr + "/images/testos/disk.img")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	sum := sha256.Sum256(disk)
	if res.StatusCode != 200 || string(body) != string(disk) || res.Header.Get("ETag") != `"sha256-`+hex.EncodeToString(sum[:])+`"` {
		t.Fatalf("disk image: %d, %d bytes, ETag %s", res.StatusCode, len(body), res.Header.Get("ETag"))
	}
	admin := "Authorization: Bearer " + d.adminToken()
	code, out := d.call("POST", "/clusters", admin, `{"name":"c1","openshift_version":"4.17","pull_secret":"{\"auths\":{}}","high_availability_mode":"None"}`)
	var c struct {
		ID          string `json:"id"`
		ImageSetRef string `json:"image_set_ref"`
	}
	if err := json.Unmarshal([]byte(out), &c); code != 201 || err != nil || c.ImageSetRef != "testos" {
		t.Fatalf("create cluster: %d %s", code, out)
	}
	code, out = d.call("POST", "/clusters/"+c.ID+"/actions/install", admin, "")
	if code != 409 || !strings.Contains(out, `"validations"`) || !strings.Contains(out, "dns-domain-defined") {
		t.Errorf("install of a cluster that is not ready: %d %s", code, out)
	}
}
