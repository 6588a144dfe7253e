package steps

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cmd/rackboot-agent/protocol"
	"github.com/rackboot/rackboot/engine/models"
)

const (
	installInfraEnv = "7c3f1d2e-1111-4222-8333-444455556666"
	installHost     = "0d8e5b2a-aaaa-bbbb-cccc-ddddeeeeffff"
	installToken    = "eyJhbGciOiJFUzI1NiJ9.install-agent-token.sig"
	ignitionSecret  = "s3cr3t-first-boot-token"
	progressPath    = "/api/assisted-install/v2/infra-envs/" + installInfraEnv + "/hosts/" + installHost + "/progress"
	ignitionPath    = "/api/assisted-install/v2/infra-envs/" + installInfraEnv + "/hosts/" + installHost + "/downloads/ignition"
)

// testConfig is a valid Ignition config holding a secret, padded to at
// least size bytes.
func testConfig(size int) string {
	head := `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/rackboot/token","contents":{"source":"data:,` + ignitionSecret
	tail := `"}}]}}`
	return head + strings.Repeat("x", max(0, size-len(head)-len(tail))) + tail
}

// The partitions of testImage, in sectors.
const (
	bootFirst, bootLast = 2048, 4095 // 1 MiB
	rootFirst, rootLast = 4096, 8000
)

// testImage is a 4 MiB CoreOS-shaped metal image: a GPT with boot, an
// ext4 labelled boot made by mkfs.ext4 holding the first-boot stamp and
// a BLS entry (bootTree), and root, filled with a pattern.
func testImage(t *testing.T) []byte {
	t.Helper()
	img := makeGPT(8192, []testPart{{"boot", bootFirst, bootLast}, {"root", rootFirst, rootLast}})
	copy(img[bootFirst*SectorSize:], bootExt4(t, bootTree(t), (bootLast-bootFirst+1)*SectorSize))
	for i := rootFirst * SectorSize; i < (rootLast+1)*SectorSize; i++ {
		img[i] = byte(i*7 + i>>12)
	}
	return img
}

// bootExt4 is an ext4 of size bytes labelled boot holding dir's files,
// made by mkfs.ext4.
func bootExt4(t *testing.T, dir string, size int) []byte {
	t.Helper()
	if _, err := exec.LookPath("mkfs.ext4"); err != nil {
		t.Skip("mkfs.ext4 not installed (e2fsprogs)")
	}
	fs := filepath.Join(t.TempDir(), "boot.ext4")
	if err := os.WriteFile(fs, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(fs, int64(size)); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mkfs.ext4", "-q", "-F", "-L", "boot", "-d", dir, fs).CombinedOutput(); err != nil {
		t.Fatalf("mkfs.ext4: %v %s", err, out)
	}
	return readFile(t, fs)
}

// requireMount skips unless the test may attach loop devices and mount
// (root): the agent mounts the written image's boot file system.
func requireMount(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the install mounts the image's boot file system through a loop device: run as root")
	}
	if _, err := exec.LookPath("debugfs"); err != nil {
		t.Skip("debugfs not installed (e2fsprogs)")
	}
}

// installEnv is a loopback service (ignition + progress) and image server.
type installEnv struct {
	t      *testing.T
	image  []byte
	config string
	srv    *httptest.Server
	url    string // the service's and image server's base URL
	logs   bytes.Buffer
	logMu  sync.Mutex
	mu     sync.Mutex
	stages []models.HostProgress
	ranges []string // Range header of every image request
	// dropAfter: the first image request is cut after this many bytes.
	dropAfter int
	// refuseProgress answers progress reports with this status when set.
	refuseProgress int
	// after is how image requests after the first dropped one are served:
	// "" with Range support, "ignore-range" as a whole, "stall" by
	// sending part and then nothing, "503" with that status.
	after string
	stall time.Duration // Deps.ImageStallTimeout
	// coreosInstaller and networkDir are Deps.CoreOSInstaller ("none"
	// when empty: a coreos-installer on the test machine's PATH is not
	// used) and Deps.NetworkDir.
	coreosInstaller, networkDir string
	osmetDir                    string // Deps.OsmetDir (an empty directory when "")
	xz                          string // Deps.XZ
}

func newInstallEnv(t *testing.T, image []byte, config string) *installEnv {
	e := &installEnv{t: t, image: image, config: config}
	e.srv = httptest.NewServer(e.handler(nil))
	e.url = e.srv.URL
	t.Cleanup(e.srv.Close)
	return e
}

// handler serves the image, the Ignition and progress; other requests go
// to rest (nil: 404).
func (e *installEnv) handler(rest http.Handler) http.Handler {
	mux := http.NewServeMux()
	if rest != nil {
		mux.Handle("/", rest)
	}
	mux.HandleFunc("GET /images/disk.img", e.serveImage)
	mux.HandleFunc("GET "+ignitionPath, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Secret-Key") != installToken {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		_ = json.NewEncoder(w).Encode(models.HostIgnitionParams{Config: e.config})
	})
	mux.HandleFunc("PUT "+progressPath, e.progress)
	return mux
}

func (e *installEnv) serveImage(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	e.ranges = append(e.ranges, r.Header.Get("Range"))
	first, drop, n := len(e.ranges) == 1, e.dropAfter, len(e.ranges)
	e.mu.Unlock()
	w.Header().Set("ETag", `"disk-v1"`)
	if first && drop > 0 {
		// Announce the whole image, send part of it, and drop the connection.
		w.Header().Set("Content-Length", fmt.Sprint(len(e.image)))
		_, _ = w.Write(e.image[:drop])
		panic(http.ErrAbortHandler)
	}
	switch {
	case first:
	case e.after == "ignore-range":
		_, _ = w.Write(e.image)
		return
	case e.after == "503":
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	case e.after == "stall" && n == 2:
		w.Header().Set("Content-Length", fmt.Sprint(len(e.image)-drop))
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", drop, len(e.image)-1, len(e.image)))
		w.WriteHeader(http.StatusPartialContent)
		_, _ = w.Write(e.image[drop : drop+4096])
		w.(http.Flusher).Flush()
		<-r.Context().Done() // until the client gives up on the stalled body
		return
	}
	http.ServeContent(w, r, "disk.img", time.Time{}, bytes.NewReader(e.image))
}

func (e *installEnv) progress(w http.ResponseWriter, r *http.Request) {
	var p models.HostProgress
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if r.Header.Get("X-Secret-Key") != installToken || dec.Decode(&p) != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.refuseProgress != 0 {
		w.WriteHeader(e.refuseProgress)
		return
	}
	e.stages = append(e.stages, p)
	_, _ = io.WriteString(w, "{}")
}

func (e *installEnv) Write(p []byte) (int, error) {
	e.logMu.Lock()
	defer e.logMu.Unlock()
	return e.logs.Write(p)
}

// device is a file of size bytes filled with 0x5a.
func (e *installEnv) device(size int) (string, []byte) {
	b := bytes.Repeat([]byte{0x5a}, size)
	path := filepath.Join(e.t.TempDir(), "vda")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		e.t.Fatal(err)
	}
	return path, b
}

func (e *installEnv) args(dev string, mod func(*models.InstallStepArgs)) []string {
	sum := sha256.Sum256(e.image)
	a := models.InstallStepArgs{Role: "master", ClusterID: "c0ffee00-1111-4222-8333-444455556666", HostID: installHost,
		InfraEnvID: installInfraEnv, BootDevice: dev, ImageURL: e.url + "/images/disk.img",
		ImageSHA256: hex.EncodeToString(sum[:]), ImageSize: int64(len(e.image)), IgnitionURL: e.url + ignitionPath,
		InstallerArgs: []string{"--copy-network"}}
	if mod != nil {
		mod(&a)
	}
	b, err := json.Marshal(a)
	if err != nil {
		e.t.Fatal(err)
	}
	return []string{string(b)}
}

// run runs the install step through the runner, as the agent does.
func (e *installEnv) run(args []string) *models.StepReply {
	e.t.Helper()
	client, err := protocol.New(protocol.Config{URL: e.url, InfraEnvID: installInfraEnv, Token: installToken, AgentVersion: "test"})
	if err != nil {
		e.t.Fatal(err)
	}
	ci, osmet := e.coreosInstaller, e.osmetDir
	if ci == "" {
		ci = "none"
	}
	if osmet == "" {
		osmet = e.t.TempDir()
	}
	r := NewRunner(Deps{Install: client, Log: slog.New(slog.NewTextHandler(e, nil)), InstallRetryWait: time.Millisecond,
		ImageStallTimeout: e.stall, CoreOSInstaller: ci, NetworkDir: e.networkDir, OsmetDir: osmet, XZ: e.xz})
	rep := r.Run(context.Background(), &models.Step{StepID: "install-1", StepType: models.StepTypeInstall, Args: args})
	e.mu.Lock()
	defer e.mu.Unlock()
	e.logMu.Lock()
	defer e.logMu.Unlock()
	for _, s := range []string{e.logs.String(), rep.Error, rep.Output, fmt.Sprint(e.stages)} {
		if strings.Contains(s, installToken) || strings.Contains(s, ignitionSecret) {
			e.t.Errorf("a secret leaked: %s", s)
		}
	}
	return rep
}

func (e *installEnv) stageNames() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, s := range e.stages {
		out = append(out, string(s.CurrentStage))
	}
	return out
}

// lastStage is the last progress the service saw.
func (e *installEnv) lastStage() models.HostProgress {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.stages) == 0 {
		return models.HostProgress{}
	}
	return e.stages[len(e.stages)-1]
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
