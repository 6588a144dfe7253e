package osimages

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/rackboot/rackboot/boot/coreos"
)

// ErrBad is wrapped by every error about an entry's content.
var ErrBad = errors.New("bad osImages entry")

// OSImage is one entry of spec.osImages, as upstream writes it.
type OSImage struct {
	OpenshiftVersion string `json:"openshiftVersion"`
	Version          string `json:"version,omitempty"`
	CPUArchitecture  string `json:"cpuArchitecture,omitempty"`
	URL              string `json:"url"`
	RootFSURL        string `json:"rootFSUrl"`
}

// MaxImages bounds the list.
const MaxImages = 64

// Parse reads spec.osImages from an AgentServiceConfig's spec and checks
// it; CPUArchitecture comes back as boot/coreos names it (x86_64,
// aarch64). A spec without osImages is an empty list.
func Parse(spec json.RawMessage) ([]OSImage, error) {
	var s struct {
		OSImages []OSImage `json:"osImages"`
	}
	if len(spec) > 0 {
		if err := json.Unmarshal(spec, &s); err != nil {
			return nil, fmt.Errorf("%w: spec.osImages: %w", ErrBad, err)
		}
	}
	if len(s.OSImages) > MaxImages {
		return nil, fmt.Errorf("%w: spec.osImages: %d entries, at most %d", ErrBad, len(s.OSImages), MaxImages)
	}
	seen := map[string]int{}
	for i := range s.OSImages {
		img := &s.OSImages[i]
		if err := check(img); err != nil {
			return nil, fmt.Errorf("%w: spec.osImages[%d]: %s", ErrBad, i, err)
		}
		name := Name(*img)
		if j, dup := seen[name]; dup {
			return nil, fmt.Errorf("%w: spec.osImages[%d]: openshiftVersion %q for %s again (spec.osImages[%d])",
				ErrBad, i, img.OpenshiftVersion, img.CPUArchitecture, j)
		}
		seen[name] = i
	}
	return s.OSImages, nil
}

func check(img *OSImage) error {
	if img.CPUArchitecture == "" {
		img.CPUArchitecture = "x86_64"
	}
	arch := coreos.Arch(img.CPUArchitecture)
	switch {
	case img.OpenshiftVersion == "":
		return errors.New("openshiftVersion is empty")
	case len(img.OpenshiftVersion) > 32 || strings.ContainsFunc(img.OpenshiftVersion, notNameRune):
		return fmt.Errorf("openshiftVersion %.40q is not a version (letters, digits, '.', '_', '-')", img.OpenshiftVersion)
	case arch == "":
		return fmt.Errorf("cpuArchitecture %.32q is not x86_64 or aarch64", img.CPUArchitecture)
	case img.URL == "":
		return errors.New("url (the live ISO) is empty")
	case img.RootFSURL == "":
		return errors.New("rootFSUrl (the live rootfs) is empty")
	}
	img.CPUArchitecture = arch
	for _, u := range []string{img.URL, img.RootFSURL} {
		if _, err := parseSource(u); err != nil {
			return err
		}
	}
	return nil
}

func notNameRune(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-')
}

// Name is the image set's name of a checked entry: ocp-<openshiftVersion>-<arch>.
func Name(img OSImage) string {
	return "ocp-" + img.OpenshiftVersion + "-" + arch(img)
}

// arch is the entry's architecture as boot/coreos names it (x86_64 when
// unset).
func arch(img OSImage) string {
	if img.CPUArchitecture == "" {
		return "x86_64"
	}
	return coreos.Arch(img.CPUArchitecture)
}
