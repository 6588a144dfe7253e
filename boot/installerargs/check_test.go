package installerargs

import (
	"errors"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"--append-karg", "console=ttyS0"},
		{"--append-karg=nosmt", "--delete-karg", "quiet", "--copy-network"},
		{"--save-partlabel", "data*", "--network-dir", "/etc/NetworkManager/system-connections"},
	} {
		if err := Check(args); err != nil {
			t.Errorf("Check(%q): %v", args, err)
		}
	}
	for args, want := range map[string]string{
		"--image-url http://x":         `"--image-url" is not an allowed coreos-installer flag (allowed: --append-karg, --copy-network, --delete-karg, --network-dir, --save-partindex, --save-partlabel)`,
		"--append-karg":                "--append-karg needs a value",
		"--append-karg --copy-network": "--append-karg needs a value",
		"--copy-network=yes":           "--copy-network takes no value",
		"rm -rf /":                     `"rm" is not an allowed`,
		"--append-karg a\nb":           "argument 2 holds a control character",
	} {
		err := Check(strings.Split(args, " "))
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), want) {
			t.Errorf("Check(%q) = %v, want ErrInvalid with %q", args, err, want)
		}
	}
}

func FuzzCheck(f *testing.F) {
	f.Add("--append-karg", "x=1")
	f.Add("--copy-network", "")
	f.Fuzz(func(t *testing.T, a, b string) {
		err := Check([]string{a, b})
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Fatalf("Check(%q, %q): %v does not wrap ErrInvalid", a, b, err)
		}
	})
}
