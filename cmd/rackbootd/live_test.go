package main

import (
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/boot/coreos/coreostest"
)

// liveScript is seed 001's iPXE script as rackboot renders it for a host
// of a CoreOS image set: the live initramfs named initrd, the ISO's kernel
// with coreos.live.rootfs_url, ignition.firstboot and
// ignition.platform.id=metal, then the image set's kernel arguments.
const liveScript = `#!ipxe
initrd --name initrd http://ADDR/boot/52-54-00-00-00-06/initrd
kernel http://ADDR/boot/52-54-00-00-00-06/kernel initrd=initrd coreos.live.rootfs_url=http://ADDR/images/fcos/rootfs.img ignition.firstboot ignition.platform.id=metal console=tty1 console=ttyS0,115200n8
boot
`

// liveConfig is the engine test configuration with a CoreOS image set
// read from the mirror's stream.json.
func (d *testDaemon) liveConfig(m *coreostest.Mirror, arch string) string {
	conf := strings.Replace(d.engineConfig(""), "[server]\n", fmt.Sprintf("[server]\nagent_dir = %q\n", m.AgentDir), 1)
	return conf + fmt.Sprintf(`
[[image_set]]
name = "fcos"
cpu_arch = %q
coreos_stream = %q
kernel_arguments = "console=tty1 console=ttyS0,115200n8"
`, arch, m.Stream)
}

// TestCoreOSImageSetBootsTheLiveISOsPXEFiles: a host of an infra-env whose
// image set is a CoreOS stream gets seed 001's script; its kernel is the
// ISO's images/pxeboot/vmlinuz, its initrd the ISO's live initramfs
// followed by the config.ign archive, and the rootfs URL serves the
// mirror's rootfs with Range, HEAD and the stream's sha256 as ETag.
func TestCoreOSImageSetBootsTheLiveISOsPXEFiles(t *testing.T) {
	m := coreostest.NewMirror(t)
	d := newTestDaemon(t, freePort(t, "tcp"), freePort(t, "udp"))
	d.writeConfig(d.liveConfig(m, "x86_64"))
	d.start(nil)
	d.waitNote("READY=1")
	lab := d.createInfraEnv("lab")

	script := d.get("/boot/52-54-00-00-00-06/script.ipxe")
	if want := strings.ReplaceAll(liveScript, "ADDR", d.httpAddr); script != want {
		t.Errorf("script:\n%s\nwant:\n%s", script, want)
	}
	// The infra-env's kernel_arguments change the live command line.
	if code, body := d.call("PATCH", "/infra-envs/"+lab, "Authorization: Bearer "+d.adminToken(),
		`{"kernel_arguments":[{"operation":"append","value":"rd.luks.options=discard"},{"operation":"replace","value":"console=ttyS1,115200n8"}]}`); code != http.StatusCreated {
		t.Fatalf("PATCH kernel_arguments: %d %s", code, body)
	}
	want := strings.ReplaceAll(strings.Replace(liveScript, "console=tty1 console=ttyS0,115200n8", "console=ttyS1,115200n8 rd.luks.options=discard", 1), "ADDR", d.httpAddr)
	if script := d.get("/boot/52-54-00-00-00-06/script.ipxe"); script != want {
		t.Errorf("script with the infra-env's kernel arguments:\n%s\nwant:\n%s", script, want)
	}
	if got := d.get("/boot/52-54-00-00-00-06/kernel"); got != string(m.Kernel["x86_64"]) {
		t.Errorf("kernel: %d bytes, not the ISO's vmlinuz (%d)", len(got), len(m.Kernel["x86_64"]))
	}
	files := ignitionFiles(t, []byte(d.get("/boot/52-54-00-00-00-06/initrd")), string(m.Initrd["x86_64"]))
	if ac, ok := agentConfOf(t, files); !ok || ac.InfraEnvID != lab {
		t.Errorf("config.ign after the live initramfs: %+v %v", ac, ok)
	}
	checkRemoteAgent(t, d, "amd64", m.Agent["amd64"], string(m.Initrd["x86_64"]))
	if got := d.get("/images/fcos/rootfs.img"); got != string(m.Rootfs["x86_64"]) {
		t.Errorf("rootfs: %d bytes, want %d", len(got), len(m.Rootfs["x86_64"]))
	}
	checkRangeHEADETag(t, "http://"+d.httpAddr+"/images/fcos/rootfs.img", m.Rootfs["x86_64"],
		`"sha256-`+coreostest.FileSHA256(t, m.RootfsFile["x86_64"])+`"`)
	// Virtual media: the infra-env's discovery ISO is the live ISO with
	// the config in its embed area.
	code, body := d.call("GET", "/infra-envs/"+lab+"/downloads/image-url", "Authorization: Bearer "+d.adminToken(), "")
	var u struct {
		URL string `json:"url"`
	}
	if code != http.StatusOK || json.Unmarshal([]byte(body), &u) != nil {
		t.Fatalf("image-url: %d %s", code, body)
	}
	iso, base := d.get(strings.TrimPrefix(u.URL, "http://"+d.httpAddr)), readFile(t, m.ISO["x86_64"])
	if len(iso) != len(base) || iso == base {
		t.Errorf("discovery ISO: %d bytes (live ISO %d), identical %v", len(iso), len(base), iso == base)
	}
	// The PXE files were taken out of the ISO into data_dir/coreos.
	if ents, err := os.ReadDir(filepath.Join(d.dir, "state", "coreos")); err != nil || len(ents) != 1 {
		t.Errorf("data_dir/coreos: %v %v", ents, err)
	}
}

// checkRangeHEADETag asks url for bytes 5-20, HEAD, and If-None-Match.
func checkRangeHEADETag(t *testing.T, url string, content []byte, etag string) {
	t.Helper()
	do := func(method string, hdr ...string) (*http.Response, string) {
		req, err := http.NewRequest(method, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	res, body := do("GET", "Range", "bytes=5-20")
	if res.StatusCode != http.StatusPartialContent || body != string(content[5:21]) || res.Header.Get("ETag") != etag {
		t.Errorf("Range: %s %q ETag %s (want %s)", res.Status, body, res.Header.Get("ETag"), etag)
	}
	res, body = do("HEAD")
	if res.StatusCode != http.StatusOK || body != "" || res.ContentLength != int64(len(content)) {
		t.Errorf("HEAD: %s length %d body %q", res.Status, res.ContentLength, body)
	}
	if res, _ = do("GET", "If-None-Match", etag); res.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: %s", res.Status)
	}
}

// TestCoreOSCheckConfigRefusesATamperedRootfs: a rootfs whose sha256
// is not the stream's is refused at load, naming the file.
func TestCoreOSCheckConfigRefusesATamperedRootfs(t *testing.T) {
	m := coreostest.NewMirror(t)
	if err := os.WriteFile(m.RootfsFile["aarch64"], []byte("tampered"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := newTestDaemon(t, freePort(t, "tcp"), freePort(t, "udp"))
	d.writeConfig(d.liveConfig(m, "aarch64"))
	var out strings.Builder
	code := checkConfig([]string{filepath.Join(d.dir, "rackboot.toml")}, &out, &out)
	if code != 1 || !strings.Contains(out.String(), "sha256 mismatch: "+m.RootfsFile["aarch64"]) {
		t.Errorf("check-config: %d\n%s", code, out.String())
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkRemoteAgent: the config.ign of 52:54:00:00:00:06 fetches
// rackboot-agent for goarch from rackbootd, 0755 at /usr/local/bin, with
// the sha512 of the exact bytes that URL serves; and the agent unit runs it.
func checkRemoteAgent(t *testing.T, d *testDaemon, goarch string, agent []byte, initrdBase string) {
	t.Helper()
	raw := configIgn(t, []byte(d.get("/boot/52-54-00-00-00-06/initrd")), initrdBase)
	var cfg struct {
		Storage struct {
			Files []struct {
				Path     string
				Mode     int
				Contents struct {
					Source       string
					Verification struct{ Hash string }
				}
			}
		}
		Systemd struct {
			Units []struct {
				Name     string
				Enabled  bool
				Contents string
			}
		}
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	want := "http://" + d.httpAddr + "/agent/" + goarch + "/rackboot-agent"
	found := false
	for _, f := range cfg.Storage.Files {
		if f.Path != "/usr/local/bin/rackboot-agent" {
			continue
		}
		found = true
		served := d.get(strings.TrimPrefix(f.Contents.Source, "http://"+d.httpAddr))
		sum := sha512.Sum512([]byte(served))
		if f.Contents.Source != want || f.Mode != 0o755 || served != string(agent) ||
			f.Contents.Verification.Hash != "sha512-"+hex.EncodeToString(sum[:]) {
			t.Errorf("agent file %+v; served %q", f, served)
		}
	}
	if !found {
		t.Fatalf("no /usr/local/bin/rackboot-agent in config.ign:\n%s", raw)
	}
	for _, u := range cfg.Systemd.Units {
		if u.Name == "rackboot-agent.service" && (!u.Enabled || !strings.Contains(u.Contents, "ExecStart=/usr/local/bin/rackboot-agent ")) {
			t.Errorf("agent unit %+v", u)
		}
	}
}
