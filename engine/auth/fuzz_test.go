package auth

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func FuzzParseBearer(f *testing.F) {
	for _, s := range []string{"Bearer abc", "bearer a.b.c", "Basic x", "Bearer ", "", "Bearer a==", "Bearer a b", "Bearer\t a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		tok, err := ParseBearer(h)
		if err != nil {
			if tok != "" {
				t.Fatalf("token %q returned with error %v", tok, err)
			}
			return
		}
		if checkTokenChars(tok) != nil {
			t.Fatalf("accepted %q holding disallowed characters", tok)
		}
		if again, err := ParseBearer("Bearer " + tok); err != nil || again != tok {
			t.Fatalf("re-parsing %q: %q %v", tok, again, err)
		}
	})
}

// fuzzRing is a ring with one key and a token of it, for the fuzz seeds.
func fuzzRing(f *testing.F) (*KeyRing, string, string) {
	now := time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)
	k := NewKeyRing(WithClock(func() time.Time { return now }))
	if _, err := k.Generate(); err != nil {
		f.Fatal(err)
	}
	tok, err := k.Sign(Claims{InfraEnvID: "ie-1", ExpiresAt: now.Add(time.Hour)})
	if err != nil {
		f.Fatal(err)
	}
	pt, err := k.NewPathToken("ie-1", time.Time{})
	if err != nil {
		f.Fatal(err)
	}
	return k, tok, pt
}

func FuzzVerify(f *testing.F) {
	k, tok, _ := fuzzRing(f)
	f.Add(tok)
	f.Add(tok[:len(tok)/2])
	f.Add(strings.Replace(tok, "e", "f", 3))
	f.Add("eyJhbGciOiJub25lIn0.eyJpbmZyYV9lbnZfaWQiOiJhIn0.")
	f.Add("a.b.c")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := k.Verify(s)
		if err != nil {
			if len(s) >= 8 && strings.Contains(err.Error(), s) {
				t.Fatalf("error %q contains the token", err)
			}
			if HTTPStatus(err) != http.StatusUnauthorized {
				t.Fatalf("error %v maps to %d", err, HTTPStatus(err))
			}
			return
		}
		if c.InfraEnvID == "" && c.ClusterID == "" {
			t.Fatalf("accepted a token without scope: %+v", c)
		}
	})
}

func FuzzVerifyPathToken(f *testing.F) {
	k, _, pt := fuzzRing(f)
	f.Add(pt, "ie-1")
	f.Add(pt, "ie-2")
	f.Add("a.0.b", "ie-1")
	f.Add(strings.Replace(pt, ".0.", ".zz.", 1), "ie-1")
	f.Fuzz(func(t *testing.T, s, ie string) {
		err := k.VerifyPathToken(s, ie)
		if err == nil {
			if s != pt || ie != "ie-1" {
				t.Fatalf("accepted %q for %q", s, ie)
			}
			return
		}
		if len(s) >= 8 && strings.Contains(err.Error(), s) {
			t.Fatalf("error %q contains the token", err)
		}
	})
}

func FuzzCredentialFromRequest(f *testing.F) {
	f.Add("Bearer abc", "abc", "api_key=abc")
	f.Add("", "", "image_token=x&api_key=y")
	f.Add("Basic a", "a b", "api_key=%zz")
	f.Fuzz(func(t *testing.T, authz, agent, query string) {
		r := httptest.NewRequest(http.MethodGet, "/x", nil)
		r.URL.RawQuery = query
		r.Header.Set("Authorization", authz)
		r.Header.Set("X-Secret-Key", agent)
		c, err := CredentialFromRequest(r)
		if err != nil {
			if c != (Credential{}) {
				t.Fatalf("credential %+v returned with error %v", c, err)
			}
			return
		}
		if c.Source == SourceNone || checkTokenChars(c.Token) != nil {
			t.Fatalf("accepted %+v", c)
		}
	})
}
