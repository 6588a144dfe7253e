package steps

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzInstallArgs: the install step's argument comes from the service.
// Decoding and checks only: nothing is fetched or written.
func FuzzInstallArgs(f *testing.F) {
	f.Add(`{"role":"master","cluster_id":"c","host_id":"0d8e5b2a-aaaa-bbbb-cccc-ddddeeeeffff","infra_env_id":"i","boot_device":"/dev/vda",` +
		`"image_url":"http://10.0.0.1/images/x/disk.img","image_sha256":"` + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" +
		`","image_size":4194304,"ignition_url":"/api/assisted-install/v2/x","installer_args":["--x"],"unknown":1}`)
	f.Add(`{"boot_device":"/dev/../vda","image_url":"file:///etc/shadow"}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, arg string) {
		a, err := parseInstallArgs([]string{arg})
		if err != nil {
			if !errors.Is(err, ErrArgs) {
				t.Fatalf("error %v does not wrap ErrArgs", err)
			}
			return
		}
		if !filepath.IsAbs(a.BootDevice) || len(a.ImageSHA256) != 64 || a.ImageSize < 0 || a.IgnitionURL == "" {
			t.Fatalf("accepted %+v", a)
		}
	})
}

// FuzzContentRange: the Content-Range header of a resumed download.
func FuzzContentRange(f *testing.F) {
	f.Add("bytes 1048576-4194303/4194304")
	f.Add("bytes 0-0/*")
	f.Add("bytes -1-5/3")
	f.Fuzz(func(t *testing.T, v string) {
		start, total, err := parseContentRange(v)
		if err != nil {
			if !errors.Is(err, ErrParse) {
				t.Fatalf("error %v does not wrap ErrParse", err)
			}
			return
		}
		if start < 0 || (total != -1 && total <= start) {
			t.Fatalf("%q: start %d total %d", v, start, total)
		}
	})
}

func FuzzProgressInfo(f *testing.F) {
	f.Add("disk image sha256 mismatch: got a want b")
	f.Add(strings.Repeat("é", 600) + "\n\x00")
	f.Fuzz(func(t *testing.T, s string) {
		p := progressInfo(s)
		if len(p) > 1024 || !utf8.ValidString(p) || strings.ContainsFunc(p, unicode.IsControl) {
			t.Fatalf("progressInfo(%q) = %q", s, p)
		}
	})
}
