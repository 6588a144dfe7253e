package osimages

import (
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	imgs, err := Parse([]byte(`{"databaseStorage":{},"osImages":[
		{"openshiftVersion":"4.16","version":"416.94.202406251923-0","cpuArchitecture":"x86_64","url":"http://mirror/rhcos-live.x86_64.iso","rootFSUrl":"http://mirror/rhcos-live-rootfs.x86_64.img"},
		{"openshiftVersion":"4.16","cpuArchitecture":"arm64","url":"/srv/rhcos/live.aarch64.iso","rootFSUrl":"file:///srv/rhcos/rootfs.aarch64.img"},
		{"openshiftVersion":"4.15","url":"https://mirror/4.15.iso","rootFSUrl":"https://mirror/4.15.img"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, img := range imgs {
		names = append(names, Name(img))
	}
	if got := strings.Join(names, " "); got != "ocp-4.16-x86_64 ocp-4.16-aarch64 ocp-4.15-x86_64" {
		t.Errorf("names %s", got)
	}
	if imgs[1].CPUArchitecture != "aarch64" || imgs[2].CPUArchitecture != "x86_64" {
		t.Errorf("architectures %q %q", imgs[1].CPUArchitecture, imgs[2].CPUArchitecture)
	}
	if none, err := Parse([]byte(`{"filesystemStorage":{}}`)); err != nil || len(none) != 0 {
		t.Errorf("no osImages: %v %v", none, err)
	}
}

func TestParseRefuses(t *testing.T) {
	entry := func(v, arch, iso, rootfs string) string {
		return `{"openshiftVersion":"` + v + `","cpuArchitecture":"` + arch + `","url":"` + iso + `","rootFSUrl":"` + rootfs + `"}`
	}
	good := entry("4.16", "x86_64", "http://m/a.iso", "http://m/a.img")
	for name, tc := range map[string]struct{ spec, want string }{
		"json":       {`{"osImages":{}}`, "spec.osImages"},
		"version":    {`{"osImages":[` + entry("", "x86_64", "http://m/a.iso", "http://m/a.img") + `]}`, "osImages[0]: openshiftVersion is empty"},
		"version/":   {`{"osImages":[` + entry("4.16/../x", "x86_64", "http://m/a.iso", "http://m/a.img") + `]}`, "is not a version"},
		"arch":       {`{"osImages":[` + good + `,` + entry("4.17", "s390x", "http://m/a.iso", "http://m/a.img") + `]}`, "osImages[1]: cpuArchitecture \"s390x\""},
		"url":        {`{"osImages":[` + entry("4.16", "", "", "http://m/a.img") + `]}`, "url (the live ISO) is empty"},
		"rootfs":     {`{"osImages":[` + entry("4.16", "", "http://m/a.iso", "") + `]}`, "rootFSUrl (the live rootfs) is empty"},
		"scheme":     {`{"osImages":[` + entry("4.16", "", "ftp://m/a.iso", "http://m/a.img") + `]}`, "not an absolute path or a file, http or https URL"},
		"relative":   {`{"osImages":[` + entry("4.16", "", "a.iso", "http://m/a.img") + `]}`, "not an absolute path"},
		"fileremote": {`{"osImages":[` + entry("4.16", "", "file://host/a.iso", "http://m/a.img") + `]}`, "not a local file URL"},
		"duplicate":  {`{"osImages":[` + good + `,` + entry("4.16", "amd64", "http://m/b.iso", "http://m/b.img") + `]}`, "osImages[1]: openshiftVersion \"4.16\" for x86_64 again (spec.osImages[0])"},
		"secret":     {`{"osImages":[` + entry("4.16", "", "http://user:pw@m/a.iso?token=s3cret", "gopher://m/a.img") + `]}`, "gopher://m/a.img"},
	} {
		_, err := Parse([]byte(tc.spec))
		if !errors.Is(err, ErrBad) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrBad with %q", name, err, tc.want)
		}
		if err != nil && (strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "pw@")) {
			t.Errorf("%s: the error shows a credential: %v", name, err)
		}
	}
	many := `{"osImages":[` + strings.Repeat(good+",", MaxImages) + good + `]}`
	if _, err := Parse([]byte(many)); !errors.Is(err, ErrBad) || !strings.Contains(err.Error(), "at most") {
		t.Errorf("too many: %v", err)
	}
}
