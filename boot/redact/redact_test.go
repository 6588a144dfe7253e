package redact

import (
	"errors"
	"strings"
	"testing"
)

func TestError(t *testing.T) {
	pull := `{"auths":{"quay.io":{"auth":"c2VjcmV0LXB1bGw="}}}`
	inner := errors.New(`parse: bad value "c2VjcmV0LXB1bGw=" near token tok-12345`)
	err := Error(inner, []string{pull, "tok-12345"})
	if !errors.Is(err, inner) {
		t.Fatal("the redacted error lost its chain")
	}
	if s := err.Error(); strings.Contains(s, "c2VjcmV0LXB1bGw=") || strings.Contains(s, "tok-12345") || strings.Count(s, Redacted) != 2 {
		t.Fatalf("redacted text %q", s)
	}
	if plain := errors.New("nothing secret"); Error(plain, []string{pull}) != plain {
		t.Fatal("an error without secrets was wrapped")
	}
	if got := Text("a b c", []string{"a", "b"}); got != "a b c" {
		t.Fatalf("short secrets removed: %q", got)
	}
	if got := Text("key=abcdef", []string{"abcd", "abcdef"}); got != "key="+Redacted {
		t.Fatalf("the longer secret was not removed whole: %q", got)
	}
}

func FuzzText(f *testing.F) {
	f.Add("token abcdef in text", "abcdef")
	f.Add(`{"a":"bcdef"}`, `{"a":"bcdef"}`)
	f.Fuzz(func(t *testing.T, s, secret string) {
		out := Text(s, []string{secret})
		if len(secret) >= minSecretLen && strings.Contains(out, secret) && !strings.Contains(Redacted, secret) {
			t.Fatalf("secret %q left in %q", secret, out)
		}
	})
}
