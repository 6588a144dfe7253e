package auth

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestLoadOrCreateAdminToken(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	tok, err := LoadOrCreateAdminToken(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(tok) != 43 || checkTokenChars(tok) != nil {
		t.Fatalf("token %q: want 43 base64url chars", tok)
	}
	st, err := os.Stat(filepath.Join(dir, AdminTokenFile))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	again, err := LoadOrCreateAdminToken(dir)
	if err != nil || again != tok {
		t.Fatalf("second start: %q, %v; want the same token", again, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("data dir holds %d entries, want only %s", len(entries), AdminTokenFile)
	}
}

func TestLoadOrCreateAdminTokenRace(t *testing.T) {
	dir := t.TempDir()
	const n = 16
	toks := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { toks[i], errs[i] = LoadOrCreateAdminToken(dir) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || toks[i] != toks[0] {
			t.Fatalf("start %d: %q, %v; want %q", i, toks[i], errs[i], toks[0])
		}
	}
}

func TestAdminTokenFileRefused(t *testing.T) {
	const secret = "c2VjcmV0LXRva2VuLXRoYXQtbXVzdC1ub3QtbGVhaw"
	cases := []struct {
		name  string
		setup func(t *testing.T, path string)
		want  string
	}{
		{"world readable", func(t *testing.T, p string) { write(t, p, secret, 0o644) }, "mode 0644"},
		{"group readable", func(t *testing.T, p string) { write(t, p, secret, 0o640) }, "mode 0640"},
		{"empty", func(t *testing.T, p string) { write(t, p, "\n", 0o600) }, "is empty"},
		{"not a token", func(t *testing.T, p string) { write(t, p, "a b\x00c", 0o600) }, "characters"},
		{"directory", func(t *testing.T, p string) { mustDo(t, os.Mkdir(p, 0o700)) }, "not a regular file"},
		{"symlink", func(t *testing.T, p string) {
			target := p + ".real"
			write(t, target, secret, 0o600)
			mustDo(t, os.Symlink(target, p))
		}, "symlink"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, AdminTokenFile)
			c.setup(t, path)
			before, _ := os.ReadFile(path)
			_, err := LoadOrCreateAdminToken(dir)
			if !errors.Is(err, ErrInsecureTokenFile) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v; want ErrInsecureTokenFile mentioning %q", err, c.want)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error leaks the token: %v", err)
			}
			after, _ := os.ReadFile(path)
			if string(before) != string(after) {
				t.Error("the refused file was changed")
			}
		})
	}
}

func TestTokenEqual(t *testing.T) {
	cases := []struct {
		got, want string
		eq        bool
	}{
		{"abc", "abc", true},
		{"abc", "abd", false},
		{"abc", "abcd", false},
		{"", "", false},
		{"x", "", false},
	}
	for _, c := range cases {
		if TokenEqual(c.got, c.want) != c.eq {
			t.Errorf("TokenEqual(%q, %q) = %v", c.got, c.want, !c.eq)
		}
	}
}

func write(t *testing.T, path, data string, mode os.FileMode) {
	t.Helper()
	mustDo(t, os.WriteFile(path, []byte(data), mode))
	mustDo(t, os.Chmod(path, mode))
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
