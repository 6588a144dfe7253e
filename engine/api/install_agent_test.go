package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	v35 "github.com/coreos/ignition/v2/config/v3_5"

	"github.com/rackboot/rackboot/boot"
	"github.com/rackboot/rackboot/boot/httpboot"
	"github.com/rackboot/rackboot/boot/installer"
	"github.com/rackboot/rackboot/cmd/rackboot-agent/steps"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/models"
)

// storeImages serves the disk images of a store's image sets (what
// engine/bootsel does in rackbootd).
type storeImages struct{ st engine.Store }

func (s storeImages) DiskImage(_ context.Context, name string) (httpboot.DiskImage, bool) {
	var is engine.ImageSet
	var ok bool
	s.st.Read(func(m *engine.Model) { is, ok = m.ImageSet(name) })
	return httpboot.DiskImage{Path: is.DiskImage.Path, SHA256: is.DiskImage.SHA256, Size: is.DiskImage.Size}, ok
}

type noBoot struct{}

func (noBoot) Choose(context.Context, net.HardwareAddr) (boot.Choice, error) {
	return boot.Choice{}, boot.ErrNoBoot
}

// newEnvWithBoot is newEnv whose image URLs point at a real boot server on
// loopback serving the store's disk images.
func newEnvWithBoot(t *testing.T) *env {
	t.Helper()
	st := enginetest.NewStore()
	bh, err := httpboot.New(httpboot.Options{BaseURL: "http://127.0.0.1:1", Boot: noBoot{}, Images: storeImages{st}})
	if err != nil {
		t.Fatal(err)
	}
	bootSrv := httptest.NewServer(bh)
	t.Cleanup(bootSrv.Close)
	keys := auth.NewKeyRing()
	if _, err := keys.Generate(); err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	h, err = New(Options{Store: st, AdminToken: testAdmin, Keys: keys, ServiceURL: srv.URL, BootURL: bootSrv.URL,
		Log: slog.New(slog.NewJSONHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, store: st, srv: srv, logs: logs, keys: keys, seen: &syncBuffer{}}
}

// bootOffset is where gptImage's boot partition starts.
const bootOffset = 2 << 20

// gptImage makes a 4 MiB CoreOS-shaped metal image with sgdisk and
// mkfs.ext4: an ESP, an ext4 labelled boot holding the first-boot stamp
// (LBA 4096, 1 MiB), a pattern in the rest.
func gptImage(t *testing.T, path string) []byte {
	t.Helper()
	for _, tool := range []string{"sgdisk", "mkfs.ext4", "debugfs"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s (gdisk, e2fsprogs) is not installed", tool)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("the agent's install mounts the image's boot file system through a loop device: run as root")
	}
	img := bytes.Repeat([]byte("rackboot"), 4<<20/8)
	if err := os.WriteFile(path, img, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("sgdisk", "-Z", "-n1:2048:+1M", "-c1:EFI-SYSTEM", "-t1:ef00",
		"-n2:0:+1M", "-c2:boot", path).CombinedOutput()
	if err != nil {
		t.Fatalf("sgdisk: %v\n%s", err, out)
	}
	tree := t.TempDir()
	if err := os.WriteFile(filepath.Join(tree, "ignition.firstboot"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = exec.Command("mkfs.ext4", "-q", "-F", "-L", "boot", "-d", tree, "-E", fmt.Sprintf("offset=%d", bootOffset),
		path, "1024k").CombinedOutput()
	if err != nil {
		t.Fatalf("mkfs.ext4: %v\n%s", err, out)
	}
	img, err = os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// The real agent install step (rackboot-agent/steps) against the API and
// a boot server: it streams the disk image, verifies it, writes it and the
// host's Ignition to the "disk" (a file the inventory names), reports the
// stages; the Ignition it writes to ignition/config.ign on the image's
// boot file system carries the first-boot token, whose Done completes the
// single-node cluster.
func TestInstallWithAgentStep(t *testing.T) {
	e := newEnvWithBoot(t)
	runController(t, e, fakeGenerator{}, 0, nil)
	dir := t.TempDir()
	imgPath, target := filepath.Join(dir, "os.img"), filepath.Join(dir, "vda")
	img := gptImage(t, imgPath)
	if err := os.WriteFile(target, make([]byte, 8<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(img)
	is := testImageSet()
	is.DiskImage = engine.DiskImage{Path: imgPath, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(img))}
	rk := readyRack(t, e, 1, 0) // puts testImageSet: replace it after
	if _, err := e.store.Apply(t.Context(), &engine.PutImageSet{ImageSet: is}); err != nil {
		t.Fatal(err)
	}
	a := rk.agents[0]
	// The host's installation disk is the target file.
	a.inv.Disks[1].Path = target
	invJSON, _ := json.Marshal(a.inv)
	if _, err := e.store.Apply(t.Context(), &engine.UpdateHost{ID: a.id, Patch: engine.HostPatch{Inventory: invJSON}}); err != nil {
		t.Fatal(err)
	}
	e.must(adminCred(), 202, "POST", "/clusters/"+rk.cluster.ID+"/actions/install", nil)
	rk.waitCluster(engine.ClusterStatusInstalling)
	var sts models.Steps
	e.must(a.agent, 200, "GET", a.path()+"/instructions", nil).decode(t, &sts)
	var step *models.Step
	for _, s := range sts.Instructions {
		if s.StepType == models.StepTypeInstall {
			step = s
		}
	}
	if step == nil {
		t.Fatalf("no install step in %+v", sts)
	}
	r := steps.NewRunner(steps.Deps{Install: rk.agentClient(a.agent.agent), Log: slog.New(slog.DiscardHandler)})
	reply := r.Run(t.Context(), step)
	if reply.ExitCode != 0 {
		t.Fatalf("install step failed: %s", reply.Error)
	}
	var res steps.InstallResult
	if err := json.Unmarshal([]byte(reply.Output), &res); err != nil || res.BootDevice != target || res.ImageBytes != int64(len(img)) {
		t.Fatalf("install result %s: %v", reply.Output, err)
	}
	if h := a.host(); h.Progress.CurrentStage != models.HostStageRebooting || h.Status != models.HostStatusInstallingInProgress {
		t.Fatalf("after the step: %q at %q", h.Status, h.Progress.CurrentStage)
	}
	// The first boot reads the Ignition from the boot file system.
	disk, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(disk[:bootOffset], img[:bootOffset]) {
		t.Error("the disk does not hold the image")
	}
	raw, err := exec.Command("debugfs", "-R", "cat /ignition/config.ign", fmt.Sprintf("%s?offset=%d", target, bootOffset)).Output()
	if err != nil {
		t.Fatalf("debugfs: %v", err)
	}
	cfg, _, err := v35.Parse(raw)
	if err != nil {
		t.Fatalf("boot's ignition/config.ign: %v", err)
	}
	var token string
	for _, f := range cfg.Storage.Files {
		if f.Path == installer.FirstBootTokenPath && f.Contents.Source != nil {
			token, _ = url.PathUnescape(strings.TrimPrefix(*f.Contents.Source, "data:,"))
		}
	}
	if err := rk.agentClient(strings.TrimSpace(token)).PutProgress(t.Context(), a.id, models.HostProgress{CurrentStage: models.HostStageDone}); err != nil {
		t.Fatalf("first boot: %v", err)
	}
	rk.waitCluster(engine.ClusterStatusInstalled)
}
