package bmhctl_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rackboot/rackboot/bmc"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/bmhctl"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/testbed/redfish"
)

const (
	bmcUser = "admin"
	bmcPass = "s3cret-BMC-pw"
	ieID    = "11111111-1111-4111-8111-111111111111"
	hostID  = "44444444-4444-4444-8444-444444444444"
	vmMAC   = "52:54:00:ab:cd:01"
)

// fakeMachine is the machine behind the emulator: it records what the
// emulator asked of it.
type fakeMachine struct {
	mu    sync.Mutex
	on    bool
	calls []string
}

func (f *fakeMachine) record(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
}

func (f *fakeMachine) Running(context.Context) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.on
}

func (f *fakeMachine) Start(_ context.Context, o redfish.StartOptions) error {
	f.mu.Lock()
	f.on = true
	f.mu.Unlock()
	f.record(fmt.Sprintf("start boot=%s once=%t cd=%t", o.Boot, o.Once, o.CD != ""))
	return nil
}

func (f *fakeMachine) Stop(context.Context) error {
	f.mu.Lock()
	f.on = false
	f.mu.Unlock()
	f.record("stop")
	return nil
}

func (f *fakeMachine) Shutdown(ctx context.Context) error { return f.Stop(ctx) }

func (f *fakeMachine) Reset(context.Context) error {
	f.record("reset")
	return nil
}

func (f *fakeMachine) ChangeMedium(_ context.Context, path string) error {
	f.record(fmt.Sprintf("medium=%t", path != ""))
	return nil
}

// setOn powers the machine on or off behind the BMC's and the
// controller's back (the power button); the emulator reports it.
func (f *fakeMachine) setOn(on bool) {
	f.mu.Lock()
	f.on = on
	f.mu.Unlock()
}

func (f *fakeMachine) history() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.calls, "; ")
}

// recorder is an HTTPS Redfish mockup: the testbed's emulator (checked
// with redfishtool and sushy) behind a handler that records each request.
type recorder struct {
	mu   sync.Mutex
	reqs []string
	next http.Handler
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	req.Body = io.NopCloser(bytes.NewReader(body))
	line := req.Method + " " + req.URL.Path
	if len(body) > 0 {
		var v any
		if json.Unmarshal(body, &v) == nil {
			b, _ := json.Marshal(v) // keys sorted
			body = b
		}
		line += " " + string(body)
	}
	r.mu.Lock()
	r.reqs = append(r.reqs, line)
	r.mu.Unlock()
	r.next.ServeHTTP(w, req)
}

// take returns the requests since the last take.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.reqs
	r.reqs = nil
	return out
}

// writes are the requests that change something (not GET).
func writes(reqs []string) []string {
	var out []string
	for _, r := range reqs {
		if !strings.HasPrefix(r, "GET ") {
			out = append(out, r)
		}
	}
	return out
}

// clock is a test clock the controller reads.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// images serves a small ISO over http and hands out its URL.
type images struct{ base string }

func (i images) ISOURL(_ context.Context, ie string) (string, error) {
	return i.base + "/images/" + ie + "/tok3n-abc/discovery.iso", nil
}

// bed is one controller test: a store, a sealer, the mockup, a clock.
type bed struct {
	t       *testing.T
	st      *enginetest.Store
	sealer  *engine.Sealer
	machine *fakeMachine
	rec     *recorder
	bmcSrv  *httptest.Server
	bmcAddr string // host:port of the mockup
	isoBase string
	clk     *clock
	ctl     *bmhctl.Controller
	logs    syncBuffer // the controller's log, text
}

// syncBuffer is a log destination goroutines may share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

const testBackoff = time.Minute

// newBed makes a bed; mods change the controller's options.
func newBed(t *testing.T, mods ...func(*bmhctl.Options)) *bed {
	t.Helper()
	b := &bed{t: t, machine: &fakeMachine{}, clk: &clock{now: time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)}}
	b.st = enginetest.NewStoreAt(b.clk.Now)
	var err error
	if b.sealer, err = engine.NewSealer(bytes.Repeat([]byte{42}, 32)); err != nil {
		t.Fatal(err)
	}
	svc, err := redfish.New(redfish.Config{Username: bmcUser, Password: bmcPass, MediaDir: t.TempDir()},
		redfish.System{ID: "vm1", Name: "vm1", UUID: "d1e5a3c0-0000-4000-8000-000000000001", MAC: vmMAC, UEFI: true, Machine: b.machine})
	if err != nil {
		t.Fatal(err)
	}
	b.rec = &recorder{next: svc}
	b.bmcSrv = httptest.NewTLSServer(b.rec)
	t.Cleanup(b.bmcSrv.Close)
	b.bmcAddr = strings.TrimPrefix(b.bmcSrv.URL, "https://")
	iso := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		io.WriteString(w, "DISCOVERY-ISO")
	}))
	t.Cleanup(iso.Close)
	b.isoBase = iso.URL
	o := bmhctl.Options{
		Store: b.st, Images: images{base: iso.URL}, Unseal: b.sealer.Open,
		BMC:     bmc.Options{Attempts: 1, Backoff: time.Millisecond, RequestTimeout: 10 * time.Second},
		Backoff: testBackoff, MaxBackoff: 8 * testBackoff, Now: b.clk.Now,
		Log: slog.New(slog.NewTextHandler(&b.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	for _, mod := range mods {
		mod(&o)
	}
	if b.ctl, err = bmhctl.New(o); err != nil {
		t.Fatal(err)
	}
	b.apply(&engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieID, Name: "rack1"}})
	return b
}

func (b *bed) apply(cmd engine.Command) any {
	b.t.Helper()
	v, err := b.st.Apply(context.Background(), cmd)
	if err != nil {
		b.t.Fatalf("%T: %v", cmd, err)
	}
	return v
}

// addBMH stores sealed credentials and a BMH for the mockup's vm1.
func (b *bed) addBMH(scheme, password string, mod func(*engine.BareMetalHost)) {
	b.t.Helper()
	user, _ := b.sealer.Seal("vm1-bmc", engine.BMCSecretUsername, []byte(bmcUser))
	pass, _ := b.sealer.Seal("vm1-bmc", engine.BMCSecretPassword, []byte(password))
	b.apply(&engine.PutSecret{Secret: engine.Secret{Name: "vm1-bmc", Type: engine.BMCSecretType,
		Data: map[string][]byte{engine.BMCSecretUsername: user, engine.BMCSecretPassword: pass}}})
	h := engine.BareMetalHost{
		Name: "vm1", Online: true, BootMACAddress: strings.ToUpper(vmMAC),
		Labels: map[string]string{engine.LabelInfraEnv: "rack1"},
		BMC: engine.BMC{Address: scheme + "://" + b.bmcAddr + "/redfish/v1/Systems/vm1", CredentialsName: "vm1-bmc",
			DisableCertificateVerification: true},
	}
	if mod != nil {
		mod(&h)
	}
	b.apply(&engine.CreateBareMetalHost{Host: h})
}

func (b *bed) bmh() engine.BareMetalHost {
	var h engine.BareMetalHost
	b.st.Read(func(m *engine.Model) { h, _ = m.BareMetalHost("vm1") })
	return h
}

func (b *bed) host() engine.Host {
	var h engine.Host
	b.st.Read(func(m *engine.Model) { h, _ = m.Host(hostID) })
	return h
}

// events are the messages of the events so far.
func (b *bed) events() []string {
	var out []string
	b.st.Read(func(m *engine.Model) {
		for e := range m.Events(0) {
			out = append(out, e.Name+": "+e.Message)
		}
	})
	return out
}

func (b *bed) reconcile() []string {
	b.ctl.Reconcile(context.Background())
	return b.rec.take()
}

func sameList(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n  got  %s\n  want %s", what, strings.Join(got, "\n       "), strings.Join(want, "\n       "))
	}
}
