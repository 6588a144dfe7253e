package installer

import (
	"strings"
	"testing"
)

// TestTailBufferDropsPartialLine: once stderr overflows the tail, the
// first (cut) line is dropped, so half a secret never shows.
func TestTailBufferDropsPartialLine(t *testing.T) {
	var tb tailBuffer
	secret := "pull-secret-" + strings.Repeat("s", 100)
	tb.Write([]byte(strings.Repeat("x", stderrTail-50) + "\n"))
	tb.Write([]byte("fatal: " + secret + "\n"))
	tb.Write([]byte("last line\n"))
	got := tb.String()
	if strings.Contains(got, "sssss") || got != "last line\n" {
		t.Errorf("tail = %q, want only the whole last line", got)
	}
	var small tailBuffer
	small.Write([]byte("one\ntwo\n"))
	if small.String() != "one\ntwo\n" {
		t.Errorf("short stderr = %q, want it whole", small.String())
	}
}
