package discovery

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"
)

// sshKeyTypes lists the OpenSSH public key types accepted.
const sshKeyTypes = "ssh-ed25519 ssh-rsa ecdsa-sha2-nistp256 ecdsa-sha2-nistp384 " +
	"ecdsa-sha2-nistp521 sk-ssh-ed25519@openssh.com sk-ecdsa-sha2-nistp256@openssh.com"

// checkSSHKeys accepts lines "<type> <base64 blob> [comment]" whose blob
// starts with its own type, as OpenSSH writes them; blank lines and
// "#" comments are skipped. Errors name the line, never the key.
func checkSSHKeys(s string) error {
	for i, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := checkSSHKey(line); err != nil {
			return fmt.Errorf("ssh_authorized_key line %d: %w", i+1, err)
		}
	}
	return nil
}

func checkSSHKey(line string) error {
	for _, c := range line {
		if c < ' ' || c == 0x7f {
			return fmt.Errorf("control character")
		}
	}
	f := strings.Fields(line)
	if len(f) < 2 {
		return fmt.Errorf("want \"<type> <key> [comment]\" (options are not accepted)")
	}
	if !contains(strings.Fields(sshKeyTypes), f[0]) {
		return fmt.Errorf("unsupported key type (want one of %s)", sshKeyTypes)
	}
	blob, err := base64.StdEncoding.DecodeString(f[1])
	if err != nil || len(blob) < 4 {
		return fmt.Errorf("key is not base64")
	}
	n := binary.BigEndian.Uint32(blob)
	if uint64(n) > uint64(len(blob)-4) || string(blob[4:4+n]) != f[0] {
		return fmt.Errorf("key blob does not match its type %s", f[0])
	}
	return nil
}

// splitLines returns the non-empty, trimmed lines of s.
func splitLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// sshKeys returns the key lines for passwd.users, comments dropped.
func sshKeys(s string) []string {
	var out []string
	for _, l := range splitLines(s) {
		if !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// sshKeyBlobs returns the base64 blob of a key line, for scrubbing.
func sshKeyBlobs(line string) []string {
	f := strings.Fields(line)
	if len(f) < 2 {
		return nil
	}
	return f[1:2]
}
