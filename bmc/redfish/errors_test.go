package redfish_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rackboot/rackboot/bmc"
)

// count401 counts the requests the BMC refused with 401.
func count401(reqs []string) int {
	n := 0
	for _, r := range reqs {
		if strings.HasSuffix(r, "-> 401") {
			n++
		}
	}
	return n
}

func assertNoSecret(t *testing.T, what, s string) {
	t.Helper()
	b64 := base64.StdEncoding.EncodeToString([]byte(testUser + ":" + testPass))
	for _, secret := range []string{testPass, b64} {
		if strings.Contains(s, secret) {
			t.Errorf("%s leaks the password: %s", what, s)
		}
	}
}

func TestBadCredentialsAreNotRetried(t *testing.T) {
	m := newMockBMC(t, "hpe-ilo5")
	srv := start(t, m)
	var logs bytes.Buffer
	d := newDriver(t, srv.URL, bmc.Credentials{Username: testUser, Password: "wrong-" + testPass},
		bmc.Options{Attempts: 5, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	err := d.PowerOn(t.Context())
	if !errors.Is(err, bmc.ErrBadCredentials) {
		t.Fatalf("PowerOn with a wrong password = %v, want ErrBadCredentials", err)
	}
	reqs := m.requests()
	if count401(reqs) != 1 || !strings.HasSuffix(reqs[len(reqs)-1], "-> 401") {
		t.Errorf("a refused password was tried again (want one 401, and nothing after it):\n%s", strings.Join(reqs, "\n"))
	}
	if !strings.Contains(err.Error(), "401") {
		t.Errorf("error does not say what the BMC answered: %v", err)
	}
	assertNoSecret(t, "error", err.Error())
	assertNoSecret(t, "log", logs.String())
}

func TestForbiddenIsBadCredentials(t *testing.T) {
	m := newMockBMC(t, "dell-idrac9")
	m.Override = func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/redfish/v1/Systems" {
			redfishError(w, http.StatusForbidden, "Base.1.8.InsufficientPrivilege", "There are insufficient privileges for the account "+testUser+" with password "+testPass+".")
			return true
		}
		return false
	}
	srv := start(t, m)
	_, err := newDriver(t, srv.URL, goodCreds, bmc.Options{}).PowerState(t.Context())
	if !errors.Is(err, bmc.ErrBadCredentials) {
		t.Fatalf("403 = %v, want ErrBadCredentials", err)
	}
	// Even a BMC that echoes the password does not get it into the error.
	assertNoSecret(t, "error", err.Error())
	if !strings.Contains(err.Error(), "insufficient privileges") {
		t.Errorf("error lost the BMC's message: %v", err)
	}
}

func TestServiceUnavailableIsRetried(t *testing.T) {
	m := newMockBMC(t, "supermicro-x12")
	var fails atomic.Int32
	fails.Store(2)
	m.Override = func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodPost && fails.Add(-1) >= 0 {
			redfishError(w, http.StatusServiceUnavailable, "Base.1.8.ServiceTemporarilyUnavailable", "busy")
			return true
		}
		return false
	}
	srv := start(t, m)
	var logs bytes.Buffer
	d := newDriver(t, srv.URL, goodCreds, bmc.Options{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err := d.PowerOn(t.Context()); err != nil {
		t.Fatalf("PowerOn through two 503s: %v", err)
	}
	posts := 0
	for _, r := range m.requests() {
		if strings.HasPrefix(r, "POST") {
			posts++
		}
	}
	if posts != 3 {
		t.Errorf("POSTs = %d, want 3 (two 503s, then success)", posts)
	}
	if got := m.doc("/redfish/v1/Systems/1")["PowerState"]; got != "On" {
		t.Errorf("PowerState = %v, want On", got)
	}
	if !strings.Contains(logs.String(), "retrying") || !strings.Contains(logs.String(), "host=") {
		t.Errorf("retries not logged with the host:\n%s", logs.String())
	}
	assertNoSecret(t, "log", logs.String())
}

func TestServerErrorOnActionIsNotRetried(t *testing.T) {
	m := newMockBMC(t, "lenovo-xcc")
	m.Override = func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodPost {
			redfishError(w, http.StatusInternalServerError, "Base.1.8.InternalError", "internal error")
			return true
		}
		return false
	}
	srv := start(t, m)
	err := newDriver(t, srv.URL, goodCreds, bmc.Options{}).Reset(t.Context())
	if !errors.Is(err, bmc.ErrBMC) {
		t.Fatalf("500 on Reset = %v, want ErrBMC", err)
	}
	if n := strings.Count(strings.Join(m.requests(), "\n"), "POST"); n != 1 {
		t.Errorf("Reset was posted %d times after a 500, want once", n)
	}
}

func TestTimedOutActionIsNotRetried(t *testing.T) {
	m := newMockBMC(t, "dell-idrac9")
	m.Override = func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodPost {
			<-r.Context().Done()
			return true
		}
		return false
	}
	srv := start(t, m)
	d := newDriver(t, srv.URL, goodCreds, bmc.Options{RequestTimeout: 100 * time.Millisecond, Attempts: 4})
	err := d.PowerOn(t.Context())
	if !errors.Is(err, bmc.ErrUnreachable) {
		t.Fatalf("hanging Reset = %v, want ErrUnreachable", err)
	}
	if n := strings.Count(strings.Join(m.requests(), "\n"), "POST"); n != 1 {
		t.Errorf("a POST that timed out was sent %d times, want once", n)
	}
}

func TestUnreachable(t *testing.T) {
	// A port nobody listens on.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = newDriver(t, "http://"+addr, goodCreds, bmc.Options{}).PowerState(t.Context())
	if !errors.Is(err, bmc.ErrUnreachable) {
		t.Fatalf("closed port = %v, want ErrUnreachable", err)
	}
	assertNoSecret(t, "error", err.Error())
}

func TestDroppedConnectionsAreRetried(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	_, err = newDriver(t, "http://"+ln.Addr().String(), goodCreds, bmc.Options{Attempts: 3}).PowerState(t.Context())
	if !errors.Is(err, bmc.ErrUnreachable) {
		t.Fatalf("BMC closing every connection = %v, want ErrUnreachable", err)
	}
	if n := accepted.Load(); n != 3 {
		t.Errorf("connections = %d, want 3 attempts", n)
	}
}

func TestTLSVerification(t *testing.T) {
	m := newMockBMC(t, "hpe-ilo5")
	srv := httptest.NewUnstartedServer(m)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake
	srv.StartTLS()
	t.Cleanup(srv.Close)
	a, err := bmc.ParseAddress("ilo5-virtualmedia://" + strings.TrimPrefix(srv.URL, "https://"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = redfishNew(a, goodCreds).PowerState(t.Context())
	if !errors.Is(err, bmc.ErrUnreachable) || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("self-signed certificate with verification on = %v, want an ErrUnreachable about the certificate", err)
	}
	const hint = "; if this BMC has a self-signed certificate, turn verification off for it (spec.bmc.disableCertificateVerification: true)"
	if !strings.HasSuffix(err.Error(), hint) {
		t.Errorf("TLS error = %q, want it to end with the whole hint %q", err, hint)
	}
	if len(m.requests()) != 0 {
		t.Errorf("requests reached the BMC over an unverified connection")
	}
	insecure := goodCreds
	insecure.InsecureSkipVerify = true
	st, err := redfishNew(a, insecure).PowerState(t.Context())
	if err != nil || st != bmc.PowerOff {
		t.Fatalf("with verification off: %v, %v; want Off", st, err)
	}
}

func TestUnsupported(t *testing.T) {
	m := newMockBMC(t, "supermicro-x12")
	m.setDoc("/redfish/v1/Managers/1", "VirtualMedia", nil)
	sys := m.doc("/redfish/v1/Systems/1")
	delete(sys, "Actions")
	m.PutDoc("/redfish/v1/Systems/1", sys)
	srv := start(t, m)
	d := newDriver(t, srv.URL, goodCreds, bmc.Options{})
	for name, err := range map[string]error{
		"insert": d.InsertMedia(t.Context(), isoURL),
		"eject":  d.EjectMedia(t.Context()),
		"reset":  d.Reset(t.Context()),
		"boot":   d.SetBootOnce(t.Context(), bmc.BootDevice("Floppy9"), bmc.BootModeUEFI),
	} {
		if !errors.Is(err, bmc.ErrUnsupported) {
			t.Errorf("%s = %v, want ErrUnsupported", name, err)
		}
	}
}

func TestNotFoundIsUnsupported(t *testing.T) {
	m := newMockBMC(t, "dell-idrac9")
	srv := start(t, m)
	a, _ := bmc.ParseAddress("idrac-redfish+http://" + strings.TrimPrefix(srv.URL, "http://") + "/redfish/v1/Systems/Nope.1")
	_, err := redfishNew(a, goodCreds).PowerState(t.Context())
	if !errors.Is(err, bmc.ErrUnsupported) || !strings.Contains(err.Error(), "404") {
		t.Fatalf("unknown system = %v, want ErrUnsupported with 404", err)
	}
}

func TestCanceled(t *testing.T) {
	m := newMockBMC(t, "dell-idrac9")
	srv := start(t, m)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := newDriver(t, srv.URL, goodCreds, bmc.Options{}).PowerOn(ctx)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, bmc.ErrUnreachable) {
		t.Fatalf("canceled = %v, want context.Canceled and ErrUnreachable", err)
	}
}

func TestGarbageAnswer(t *testing.T) {
	m := newMockBMC(t, "hpe-ilo5")
	m.Override = func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/redfish/v1/Systems/1" {
			w.Write([]byte("<html>login page " + testPass + "</html>"))
			return true
		}
		return false
	}
	srv := start(t, m)
	a, _ := bmc.ParseAddress("ilo5-redfish+http://" + strings.TrimPrefix(srv.URL, "http://"))
	_, err := redfishNew(a, goodCreds).PowerState(t.Context())
	if !errors.Is(err, bmc.ErrBMC) || !strings.Contains(err.Error(), "malformed") {
		t.Fatalf("HTML instead of JSON = %v, want ErrBMC malformed", err)
	}
	assertNoSecret(t, "error", err.Error())
}

func TestServiceRootNeedingAuth(t *testing.T) {
	m := newMockBMC(t, "supermicro-x12")
	m.Override = func(w http.ResponseWriter, r *http.Request) bool {
		if u, p, ok := r.BasicAuth(); !ok || u != testUser || p != testPass {
			redfishError(w, http.StatusUnauthorized, "Base.1.8.NoValidSession", "no valid session")
			return true
		}
		return false
	}
	srv := start(t, m)
	if _, err := newDriver(t, srv.URL, goodCreds, bmc.Options{}).PowerState(t.Context()); err != nil {
		t.Fatalf("BMC that wants credentials on the service root: %v", err)
	}
	_, err := newDriver(t, srv.URL, bmc.Credentials{Username: testUser, Password: "nope"}, bmc.Options{}).PowerState(t.Context())
	if !errors.Is(err, bmc.ErrBadCredentials) {
		t.Fatalf("wrong password on such a BMC = %v, want ErrBadCredentials", err)
	}
}

func TestPatchWithIfMatch(t *testing.T) {
	m := newMockBMC(t, "supermicro-x12")
	m.Override = func(w http.ResponseWriter, r *http.Request) bool {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/redfish/v1/Systems/1":
			w.Header().Set("ETag", `W/"1700000000"`)
		case r.Method == http.MethodPatch && r.Header.Get("If-Match") != `W/"1700000000"`:
			redfishError(w, http.StatusPreconditionRequired, "Base.1.8.PreconditionRequired", "If-Match header is required")
			return true
		}
		return false
	}
	srv := start(t, m)
	if err := newDriver(t, srv.URL, goodCreds, bmc.Options{}).SetBootOnce(t.Context(), bmc.BootPxe, bmc.BootModeLegacy); err != nil {
		t.Fatalf("SetBootOnce on a BMC wanting If-Match: %v", err)
	}
	boot := m.doc("/redfish/v1/Systems/1")["Boot"].(map[string]any)
	if boot["BootSourceOverrideTarget"] != "Pxe" || boot["BootSourceOverrideMode"] != "Legacy" {
		t.Errorf("boot override = %v", boot)
	}
}

func TestInsertMediaEveryShapeRefused(t *testing.T) {
	m := newMockBMC(t, "hpe-ilo5")
	m.Override = func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodPost && strings.HasSuffix(strings.TrimSuffix(r.URL.Path, "/"), "InsertMedia") {
			redfishError(w, http.StatusBadRequest, "Base.1.8.ActionParameterNotSupported", "The parameter Image is not supported.")
			return true
		}
		return false
	}
	srv := start(t, m)
	err := newDriver(t, srv.URL, goodCreds, bmc.Options{}).InsertMedia(t.Context(), isoURL)
	if !errors.Is(err, bmc.ErrBMC) || !strings.Contains(err.Error(), "Image is not supported") {
		t.Fatalf("InsertMedia refused in every shape = %v, want ErrBMC with the BMC's message", err)
	}
	if n := strings.Count(strings.Join(m.requests(), "\n"), "POST"); n != 4 {
		t.Errorf("InsertMedia POSTs = %d, want the 4 known shapes, then stop", n)
	}
}

func TestOpen(t *testing.T) {
	d, err := redfishOpen("idrac-virtualmedia+https://10.0.0.6")
	if err != nil || d.Address().SystemPath != "/redfish/v1/Systems/System.Embedded.1" {
		t.Fatalf("Open = %v, %v", d, err)
	}
	if _, err := redfishOpen("ipmi://10.0.0.6"); !errors.Is(err, bmc.ErrBadAddress) {
		t.Fatalf("Open(ipmi://) = %v, want ErrBadAddress", err)
	}
}
