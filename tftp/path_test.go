package tftp

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

func TestCleanPath(t *testing.T) {
	ok := []struct{ in, want string }{
		{"undionly.kpxe", "undionly.kpxe"},
		{"/undionly.kpxe", "undionly.kpxe"}, // PXE ROMs often ask with a leading "/"
		{"//ipxe.efi", "ipxe.efi"},
		{"pxelinux.cfg//default", "pxelinux.cfg/default"},
		{"./a/./b", "a/b"},
		{`boot\x64\wdsnbp.com`, "boot/x64/wdsnbp.com"},
		{"/etc/passwd", "etc/passwd"}, // inside the root, where it does not exist
		{"a/", "a"},
		{"...", "..."},
		{"a..b", "a..b"},
		{"C:/x", "C:/x"},
	}
	for _, c := range ok {
		got, err := CleanPath(c.in)
		if err != nil || got != c.want {
			t.Errorf("CleanPath(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	bad := []struct {
		in   string
		want error
	}{
		{"../etc/passwd", ErrAccess},
		{"../../etc/passwd", ErrAccess},
		{"sub/../../x", ErrAccess},
		{"sub/../x", ErrAccess},
		{"/..", ErrAccess},
		{`..\..\windows\win.ini`, ErrAccess},
		{`sub\..\..\x`, ErrAccess},
		{"a/..", ErrAccess},
		{"", ErrBadName},
		{"/", ErrBadName},
		{"./", ErrBadName},
		{"a\x00b", ErrBadName},
		{"a\nb", ErrBadName},
		{"a\x7fb", ErrBadName},
		{"\xff\xfe", ErrBadName},
		{strings.Repeat("a", MaxNameLen+1), ErrBadName},
	}
	for _, c := range bad {
		got, err := CleanPath(c.in)
		if !errors.Is(err, c.want) {
			t.Errorf("CleanPath(%q) = %q, %v; want %v", c.in, got, err, c.want)
		}
	}
}

func FuzzCleanPath(f *testing.F) {
	for _, s := range []string{"undionly.kpxe", "/ipxe.efi", "../../etc/passwd", `a\..\b`, "a//b/./c", "sub/../../x", "\x00", "/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		p, err := CleanPath(name)
		if err != nil {
			if p != "" {
				t.Fatalf("CleanPath(%q) returned %q with error %v", name, p, err)
			}
			return
		}
		if !fs.ValidPath(p) || p == "." {
			t.Fatalf("CleanPath(%q) = %q: not a valid fs path", name, p)
		}
		for _, e := range strings.Split(p, "/") {
			if e == ".." {
				t.Fatalf("CleanPath(%q) = %q: contains ..", name, p)
			}
		}
		if strings.ContainsAny(p, "\\\x00\n\r") {
			t.Fatalf("CleanPath(%q) = %q: contains a forbidden byte", name, p)
		}
		if again, err := CleanPath(p); err != nil || again != p {
			t.Fatalf("CleanPath not idempotent: %q -> %q -> %q, %v", name, p, again, err)
		}
	})
}
