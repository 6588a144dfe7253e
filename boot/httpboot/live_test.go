package httpboot

import (
	"bytes"
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"
)

// rootfsMap and agentMap are fixed live rootfs files and agent binaries.
type rootfsMap map[string]DiskImage

func (m rootfsMap) LiveRootfs(_ context.Context, name string) (DiskImage, bool) {
	img, ok := m[name]
	return img, ok
}

type agentMap map[string]DiskImage

func (m agentMap) Agent(_ context.Context, goarch string) (DiskImage, bool) {
	img, ok := m[goarch]
	return img, ok
}

// A CoreOS image set's rootfs and the agent binaries are served with
// Range and ETag; a disk image name is not a rootfs, and unknown names,
// architectures and a handler without them are 404.
func TestLiveRootfsAndAgent(t *testing.T) {
	dir := t.TempDir()
	rootfs, agent := randomBytes(300<<10, 3), randomBytes(70<<10, 4)
	writeFile(t, filepath.Join(dir, "rootfs.img"), rootfs)
	writeFile(t, filepath.Join(dir, "agent"), agent)
	h, err := New(Options{BaseURL: "http://10.0.0.1:8080", Boot: fixedChooser{},
		Images: imageMap{"os-1": {Path: filepath.Join(dir, "agent")}},
		Rootfs: rootfsMap{"fcos": {Path: filepath.Join(dir, "rootfs.img"), SHA256: "ab"}},
		Agents: agentMap{"arm64": {Path: filepath.Join(dir, "agent")}}})
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(t, h)
	res, body := do(t, "GET", srv+"/images/fcos/rootfs.img", map[string]string{"Range": "bytes=100-199"})
	if res.StatusCode != 206 || !bytes.Equal(body, rootfs[100:200]) || res.Header.Get("ETag") != `"sha256-ab"` {
		t.Errorf("rootfs range: %d, ETag %s", res.StatusCode, res.Header.Get("ETag"))
	}
	res, body = do(t, "GET", srv+"/agent/arm64/rackboot-agent", nil)
	if res.StatusCode != 200 || !bytes.Equal(body, agent) || res.Header.Get("ETag") == "" {
		t.Errorf("agent: %d, %d bytes, ETag %q", res.StatusCode, len(body), res.Header.Get("ETag"))
	}
	for _, p := range []string{"/images/os-1/rootfs.img", "/images/nope/rootfs.img", "/agent/amd64/rackboot-agent",
		"/agent/..%2Farm64/rackboot-agent", "/agent/arm64/other"} {
		if res, _ := do(t, "GET", srv+p, nil); res.StatusCode != 404 {
			t.Errorf("%s: %d, want 404", p, res.StatusCode)
		}
	}
	bare, err := New(Options{BaseURL: "http://10.0.0.1:8080", Boot: fixedChooser{}})
	if err != nil {
		t.Fatal(err)
	}
	srv = newServer(t, bare)
	for _, p := range []string{"/images/fcos/rootfs.img", "/agent/arm64/rackboot-agent"} {
		if res, _ := do(t, "GET", srv+p, nil); res.StatusCode != 404 {
			t.Errorf("without sources %s: %d, want 404", p, res.StatusCode)
		}
	}
}

func newServer(t *testing.T, h *Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}
