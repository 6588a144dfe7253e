package cli_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cmd/rackbootctl/cli"
	"github.com/rackboot/rackboot/engine/backup"
	"github.com/rackboot/rackboot/engine/enginetest"
)

// rackbootctl backup keeps a backup only when it reads back whole: an
// answer cut short or damaged on the way fails with the reason and leaves
// an older backup at FILE as it was; a good one replaces it (0600).
func TestBackupChecksTheAnswer(t *testing.T) {
	good, _, err := backup.Take(context.Background(), enginetest.NewStore(), "n1", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var answer []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != backup.Path || r.Header.Get("Authorization") != "Bearer tok" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		w.Write(answer)
	}))
	defer srv.Close()
	file := filepath.Join(t.TempDir(), "rack.backup")
	if err := os.WriteFile(file, []byte("older backup"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func() (int, string) {
		var out bytes.Buffer
		env := cli.Env{Stdout: &out, Stderr: &out, Getenv: func(k string) string {
			return map[string]string{"RACKBOOT_URL": srv.URL, "RACKBOOT_TOKEN": "tok"}[k]
		}}
		return cli.Run(context.Background(), []string{"backup", file}, env), out.String()
	}
	flipped := bytes.Clone(good)
	flipped[len(flipped)-5] ^= 1
	for want, a := range map[string][]byte{"truncated": good[:len(good)-7], "checksum mismatch": flipped} {
		answer = a
		code, out := run()
		b, _ := os.ReadFile(file)
		if code != cli.ExitError || !strings.Contains(out, want) || string(b) != "older backup" {
			t.Errorf("answer %s: exit %d, %q; FILE now %.20q", want, code, out, b)
		}
	}
	answer = good
	if code, out := run(); code != 0 || !strings.Contains(out, "backup of node n1") {
		t.Fatalf("good answer: exit %d: %s", code, out)
	}
	b, _ := os.ReadFile(file)
	fi, _ := os.Stat(file)
	if !bytes.Equal(b, good) || fi.Mode().Perm() != 0o600 {
		t.Errorf("FILE after a good backup: %d bytes, mode %v", len(b), fi.Mode())
	}
	entries, _ := os.ReadDir(filepath.Dir(file))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}
