package discovery

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/boot/redact"
)

func TestScrub(t *testing.T) {
	in := fullInput()
	inner := fmt.Errorf("%w: saw %s and %s and auth cHVsbHVzZXI6cHVsbHNlY3JldHBhc3N3b3Jk and %s and %s",
		ErrInvalidOverride, testToken, in.PullSecret, testProxyPass, strings.Fields(testSSHKey())[1])
	err := redact.Error(inner, in.secrets())
	if !errors.Is(err, ErrInvalidOverride) {
		t.Errorf("scrubbed error lost its chain: %v", err)
	}
	assertNoSecrets(t, err, in)
	if got := strings.Count(err.Error(), "[redacted]"); got != 5 {
		t.Errorf("%d redactions in %q, want 5", got, err)
	}
}
