package auth

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestPathToken(t *testing.T) {
	k, clk := newRing(t)
	const ie = "0b6f1f6e-0f6c-4d38-9d5f-7a1c3c1b2e4d"
	forever, err := k.NewPathToken(ie, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	hour, err := k.NewPathToken(ie, clk.t.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{forever, hour} {
		u := "http://192.168.100.200:8080/images/" + ie + "/" + tok + "/discovery.iso"
		if len(tok) > 73 || len(u) > 255 || url.PathEscape(tok) != tok || strings.ContainsAny(tok, "?#/") {
			t.Errorf("ISO URL %q (%d chars): want ≤255 chars and a path-safe token", u, len(u))
		}
		if err := k.VerifyPathToken(tok, ie); err != nil {
			t.Errorf("VerifyPathToken: %v", err)
		}
	}
	again, _ := k.NewPathToken(ie, time.Time{})
	if again != forever {
		t.Error("the same infra-env and expiry gave two tokens")
	}

	other, _ := newRing(t)
	otherTok, _ := other.NewPathToken(ie, time.Time{})
	cases := []struct {
		name, token, ie string
		want            error
	}{
		{"other infra-env", forever, "another-infra-env", ErrInvalidToken},
		{"other ring", otherTok, ie, ErrUnknownKey},
		{"expiry changed", strings.Replace(hour, ".", ".1", 1), ie, ErrInvalidToken},
		{"no expiry claimed", replacePart(hour, 1, "0"), ie, ErrInvalidToken},
		{"mac flipped", flipLast(forever), ie, ErrInvalidToken},
		{"two parts", forever[:strings.LastIndex(forever, ".")], ie, ErrInvalidToken},
		{"upper-case expiry", replacePart(hour, 1, strings.ToUpper(strings.Split(hour, ".")[1])), ie, ErrInvalidToken},
		{"slash", strings.Replace(forever, "-", "/", 1) + "/x", ie, ErrInvalidToken},
		{"too long", strings.Repeat("a", 300), ie, ErrInvalidToken},
		{"empty", "", ie, ErrInvalidToken},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := k.VerifyPathToken(c.token, c.ie)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			noLeak(t, err, c.token)
		})
	}

	clk.t = clk.t.Add(2 * time.Hour)
	if err := k.VerifyPathToken(hour, ie); !errors.Is(err, ErrExpiredToken) {
		t.Errorf("expired path token: %v", err)
	}
	if err := k.VerifyPathToken(forever, ie); err != nil {
		t.Errorf("token without expiry: %v", err)
	}
	old := k.ActiveKID()
	if _, err := k.Rotate(); err != nil {
		t.Fatal(err)
	}
	if err := k.VerifyPathToken(forever, ie); err != nil {
		t.Errorf("after rotation: %v", err)
	}
	mustDo(t, k.Retire(old))
	if err := k.VerifyPathToken(forever, ie); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("after retiring its key: %v", err)
	}
	if _, err := k.NewPathToken("", time.Time{}); err == nil {
		t.Error("path token for an empty infra-env id")
	}
}

func replacePart(tok string, i int, s string) string {
	p := strings.Split(tok, ".")
	p[i] = s
	return strings.Join(p, ".")
}

func flipLast(tok string) string {
	last := tok[len(tok)-1]
	c := byte('A')
	if last == 'A' {
		c = 'B'
	}
	return tok[:len(tok)-1] + string(c)
}
