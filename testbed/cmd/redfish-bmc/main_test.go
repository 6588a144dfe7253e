package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunServes starts the command's run on loopback (no VM is powered on)
// and reads the System back over HTTPS with the password from the file.
func TestRunServes(t *testing.T) {
	dir := t.TempDir()
	pwFile := filepath.Join(dir, "pw")
	if err := os.WriteFile(pwFile, []byte("file-pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	v, err := parseVM("id=vm1,mac=52:54:00:00:00:07,tap=tap0,firmware=uefi")
	if err != nil {
		t.Fatal(err)
	}
	o := options{listen: "127.0.0.1:0", user: "admin", passwordFile: pwFile, dir: dir, maxImage: 1 << 20, vms: vmFlags{v}}
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, slog.New(slog.DiscardHandler), o, pw)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no listening line: %v (run: %v)", err, <-done)
	}
	go io.Copy(io.Discard, pr)
	base := strings.TrimSpace(strings.TrimPrefix(line, "listening on "))

	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/redfish/v1/Systems/vm1", nil)
	req.SetBasicAuth("admin", "file-pw")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var sys struct {
		PowerState string
		UUID       string
		Boot       struct{ BootSourceOverrideMode string }
	}
	json.NewDecoder(resp.Body).Decode(&sys)
	resp.Body.Close()
	if resp.StatusCode != 200 || sys.PowerState != "Off" || sys.Boot.BootSourceOverrideMode != "UEFI" || sys.UUID == "" {
		t.Errorf("GET system = %d %+v", resp.StatusCode, sys)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run after cancel = %v", err)
	}
}

func TestRunNeedsPassword(t *testing.T) {
	t.Setenv("RACKBOOT_BMC_PASSWORD", "")
	v, _ := parseVM("id=vm1,mac=52:54:00:00:00:07,tap=tap0")
	err := run(t.Context(), slog.New(slog.DiscardHandler), options{dir: t.TempDir(), vms: vmFlags{v}}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "password") {
		t.Errorf("run without a password = %v", err)
	}
}
