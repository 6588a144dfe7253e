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
	tb.Write([]byte("fatal: " + secret + "\n"))
	filler := strings.Repeat("x", stderrTail-60) + "\n"
	tb.Write([]byte(filler))
	tb.Write([]byte("last line\n"))
	got := tb.String()
	if strings.Contains(got, "sssss") || got != filler+"last line\n" {
		t.Errorf("tail = %q, want the whole lines after the cut one", got)
	}
	var small tailBuffer
	small.Write([]byte("one\ntwo\n"))
	if small.String() != "one\ntwo\n" {
		t.Errorf("short stderr = %q, want it whole", small.String())
	}
}
