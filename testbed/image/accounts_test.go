package image

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// shimRoot writes the discovery image's account files into a fresh root and
// the account tools (run by busybox sh, as in the image) into a bin
// directory; it returns both.
func shimRoot(t *testing.T) (root, bin string) {
	t.Helper()
	if _, err := os.Stat(DefaultBusybox); err != nil {
		t.Skip("no busybox-static")
	}
	root, bin = t.TempDir(), t.TempDir()
	for _, f := range discoveryStatic() {
		path := filepath.Join(root, f.name)
		body := f.body
		if strings.HasPrefix(f.name, "usr/sbin/") {
			path = filepath.Join(bin, filepath.Base(f.name))
			body = strings.Replace(body, "#!/bin/sh", "#!"+DefaultBusybox+" sh", 1)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), os.FileMode(f.mode&0o777)); err != nil {
			t.Fatal(err)
		}
	}
	return root, bin
}

func run(t *testing.T, bin string, args ...string) (string, error) {
	t.Helper()
	out, err := exec.Command(filepath.Join(bin, args[0]), args[1:]...).CombinedOutput()
	return string(out), err
}

func readEtc(t *testing.T, root, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "etc", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAccountTools runs useradd, usermod and groupadd with the arguments
// Ignition's files stage passes them.
func TestAccountTools(t *testing.T) {
	root, bin := shimRoot(t)
	if out, err := run(t, bin, "groupadd", "--root", root, "--gid", "2000", "--password", "*", "ops"); err != nil {
		t.Fatalf("groupadd: %v: %s", err, out)
	}
	if out, err := run(t, bin, "useradd", "--root", root, "--create-home", "--password", "*", "core"); err != nil {
		t.Fatalf("useradd core: %v: %s", err, out)
	}
	if out, err := run(t, bin, "useradd", "--root", root, "--home-dir", "/srv/deploy", "--no-create-home",
		"--password", "$6$salt$hash", "--uid", "1500", "--comment", "Deployer", "--gid", "ops",
		"--groups", "ops,users", "--shell", "/bin/ash", "deploy"); err != nil {
		t.Fatalf("useradd deploy: %v: %s", err, out)
	}
	if out, err := run(t, bin, "usermod", "--root", root, "--password", "$6$new$hash", "root"); err != nil {
		t.Fatalf("usermod: %v: %s", err, out)
	}
	passwd, shadow, group := readEtc(t, root, "passwd"), readEtc(t, root, "shadow"), readEtc(t, root, "group")
	for _, want := range []string{"core:x:1000:1000::/home/core:/bin/sh\n", "deploy:x:1500:2000:Deployer:/srv/deploy:/bin/ash\n"} {
		if !strings.Contains(passwd, want) {
			t.Errorf("/etc/passwd lacks %q:\n%s", want, passwd)
		}
	}
	for _, want := range []string{"core:*:", "deploy:$6$salt$hash:", "root:$6$new$hash:"} {
		if !strings.Contains(shadow, want) {
			t.Errorf("/etc/shadow lacks %q:\n%s", want, shadow)
		}
	}
	for _, want := range []string{"core:x:1000:\n", "ops:x:2000:deploy\n", "users:x:100:deploy\n"} {
		if !strings.Contains(group, want) {
			t.Errorf("/etc/group lacks %q:\n%s", want, group)
		}
	}
	if st, err := os.Stat(filepath.Join(root, "home", "core")); err != nil || !st.IsDir() || st.Mode().Perm() != 0o700 {
		t.Errorf("home of core: %v %v", st, err)
	}
	if _, err := os.Stat(filepath.Join(root, "srv", "deploy")); !os.IsNotExist(err) {
		t.Errorf("--no-create-home made a home: %v", err)
	}
}

// TestAccountToolsRefuse: a duplicate user, a bad name and an unknown
// option fail and change nothing.
func TestAccountToolsRefuse(t *testing.T) {
	root, bin := shimRoot(t)
	before := readEtc(t, root, "passwd") + readEtc(t, root, "group")
	for _, args := range [][]string{
		{"useradd", "--root", root, "root"},
		{"useradd", "--root", root, "../evil"},
		{"useradd", "--root", root, "--expiredate", "1", "x"},
		{"useradd", "--root", root, "--gid", "nogroup", "x"},
		{"usermod", "--root", root, "--password", "p", "nobody"},
		{"groupadd", "--root", root, "root"},
	} {
		if out, err := run(t, bin, args...); err == nil {
			t.Errorf("%q succeeded: %s", args, out)
		}
	}
	if after := readEtc(t, root, "passwd") + readEtc(t, root, "group"); after != before {
		t.Errorf("refused commands changed the account files:\n%s", after)
	}
}
