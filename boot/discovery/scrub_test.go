package discovery

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestScrub(t *testing.T) {
	in := fullInput()
	inner := fmt.Errorf("%w: saw %s and %s and auth cHVsbHVzZXI6cHVsbHNlY3JldHBhc3N3b3Jk and %s and %s",
		ErrInvalidOverride, testToken, in.PullSecret, testProxyPass, strings.Fields(testSSHKey())[1])
	err := scrub(inner, in.secrets())
	if !errors.Is(err, ErrInvalidOverride) {
		t.Errorf("scrubbed error lost its chain: %v", err)
	}
	assertNoSecrets(t, err, in)
	if got := strings.Count(err.Error(), "[redacted]"); got != 5 {
		t.Errorf("%d redactions in %q, want 5", got, err)
	}
	plain := errors.New("nothing secret here")
	if scrub(plain, in.secrets()) != plain {
		t.Error("an error without secrets was rewrapped")
	}
	short := scrub(errors.New("a b c"), []string{"a", "b"})
	if short.Error() != "a b c" {
		t.Errorf("secrets shorter than %d bytes scrubbed: %q", minSecretLen, short)
	}
}
