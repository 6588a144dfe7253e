package buildfs

import (
	"strings"
	"testing"
)

func TestParseLdd(t *testing.T) {
	out := "\tlinux-vdso.so.1 (0x00007ffd)\n" +
		"\tlibcurl.so.4 => /lib/x86_64-linux-gnu/libcurl.so.4 (0x00007f75)\n" +
		"\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f75)\n" +
		"\t/lib64/ld-linux-x86-64.so.2 (0x00007f75)\n"
	got, err := ParseLdd(out)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/libcurl.so.4", "/lib64/ld-linux-x86-64.so.2"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("ParseLdd = %q, want %q", got, want)
	}
	for name, bad := range map[string]string{
		"not found": "\tlibfoo.so.1 => not found\n",
		"dotdot":    "\tlibx.so => /lib/../etc/libx.so (0x1)\n",
	} {
		if _, err := ParseLdd(bad); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if got, err := ParseLdd("\tstatically linked\n"); err != nil || len(got) != 0 {
		t.Errorf("static: %q, %v, want none", got, err)
	}
}
