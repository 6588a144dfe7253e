package auth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// clock is a settable test clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newRing(t *testing.T) (*KeyRing, *clock) {
	t.Helper()
	c := &clock{t: time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)}
	k := NewKeyRing(WithClock(c.now))
	if _, err := k.Generate(); err != nil {
		t.Fatal(err)
	}
	return k, c
}

func sign(t *testing.T, k *KeyRing, c Claims) string {
	t.Helper()
	tok, err := k.Sign(c)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestSignVerify(t *testing.T) {
	k, clk := newRing(t)
	tok := sign(t, k, Claims{InfraEnvID: "ie-1", Subject: "host-a", ExpiresAt: clk.t.Add(time.Hour)})
	got, err := k.Verify(tok)
	if err != nil {
		t.Fatal(err)
	}
	want := Claims{InfraEnvID: "ie-1", Subject: "host-a", IssuedAt: clk.t, ExpiresAt: clk.t.Add(time.Hour)}
	if !got.IssuedAt.Equal(want.IssuedAt) || !got.ExpiresAt.Equal(want.ExpiresAt) ||
		got.InfraEnvID != want.InfraEnvID || got.Subject != want.Subject {
		t.Fatalf("claims %+v, want %+v", got, want)
	}
	hdr := header(t, tok)
	if hdr["alg"] != "ES256" || hdr["kid"] != k.ActiveKID() {
		t.Errorf("header %v: want alg ES256 and kid %s", hdr, k.ActiveKID())
	}
	if _, err := k.Sign(Claims{Subject: "x"}); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("claims without scope signed: %v", err)
	}
	if _, err := NewKeyRing().Sign(Claims{InfraEnvID: "a"}); !errors.Is(err, ErrKeyRing) {
		t.Errorf("empty ring signed: %v", err)
	}
}

func TestGenerateIdempotent(t *testing.T) {
	k, _ := newRing(t)
	kid := k.ActiveKID()
	again, err := k.Generate()
	if err != nil || again != kid || len(k.KIDs()) != 1 {
		t.Fatalf("Generate on a ring with a key: %q %v %v", again, err, k.KIDs())
	}
}

func TestRotateRetire(t *testing.T) {
	k, _ := newRing(t)
	old := k.ActiveKID()
	oldTok := sign(t, k, Claims{InfraEnvID: "ie-1"})
	kid, err := k.Rotate()
	if err != nil || kid == old || k.ActiveKID() != kid {
		t.Fatalf("Rotate: %q %v (old %q)", kid, err, old)
	}
	newTok := sign(t, k, Claims{InfraEnvID: "ie-1"})
	if header(t, newTok)["kid"] != kid {
		t.Error("new tokens are not signed by the new key")
	}
	for _, tok := range []string{oldTok, newTok} {
		if _, err := k.Verify(tok); err != nil {
			t.Errorf("after rotation: %v", err)
		}
	}
	if err := k.Retire(kid); !errors.Is(err, ErrKeyRing) {
		t.Errorf("retiring the active key: %v", err)
	}
	if err := k.Retire("nope"); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("retiring an unknown key: %v", err)
	}
	if err := k.Retire(old); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Verify(oldTok); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("token of a retired key: %v, want ErrUnknownKey", err)
	}
	if _, err := k.Verify(newTok); err != nil {
		t.Errorf("token of the active key after retiring the old one: %v", err)
	}
}

func TestVerifyRefuses(t *testing.T) {
	k, clk := newRing(t)
	other, _ := newRing(t)
	rk, _ := k.activeKey()
	good := sign(t, k, Claims{InfraEnvID: "ie-1"})
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pubPEM := pemPublic(t, &rk.priv.PublicKey)
	cases := []struct {
		name  string
		token string
		want  error
	}{
		{"expired", sign(t, k, Claims{InfraEnvID: "a", IssuedAt: clk.t.Add(-2 * time.Hour), ExpiresAt: clk.t.Add(-time.Hour)}), ErrExpiredToken},
		{"issued in the future", sign(t, k, Claims{InfraEnvID: "a", IssuedAt: clk.t.Add(time.Hour)}), ErrInvalidToken},
		{"other ring", sign(t, other, Claims{InfraEnvID: "a"}), ErrUnknownKey},
		{"no kid", craft(t, jwt.SigningMethodES256, rk.priv, "", jwt.MapClaims{"infra_env_id": "a"}), ErrUnknownKey},
		{"no scope claim", craft(t, jwt.SigningMethodES256, rk.priv, rk.kid, jwt.MapClaims{"sub": "a"}), ErrInvalidToken},
		{"alg none", craft(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, rk.kid, jwt.MapClaims{"infra_env_id": "a"}), ErrInvalidToken},
		{"HS256 keyed with the public key", craft(t, jwt.SigningMethodHS256, pubPEM, rk.kid, jwt.MapClaims{"infra_env_id": "a"}), ErrInvalidToken},
		{"RS256", craft(t, jwt.SigningMethodRS256, rsaKey, rk.kid, jwt.MapClaims{"infra_env_id": "a"}), ErrInvalidToken},
		{"ES384 header on ES256 key", craft(t, jwt.SigningMethodES256, rk.priv, rk.kid, jwt.MapClaims{"infra_env_id": "a"}, "ES384"), ErrInvalidToken},
		{"tampered payload", tamper(t, good), ErrInvalidToken},
		{"truncated signature", good[:len(good)-4], ErrInvalidToken},
		{"garbage", "not.a.jwt", ErrInvalidToken},
		{"empty", "", ErrInvalidToken},
		{"too long", strings.Repeat("a", MaxTokenLen+1), ErrInvalidToken},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := k.Verify(c.token)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			noLeak(t, err, c.token)
		})
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	k, clk := newRing(t)
	oldTok := sign(t, k, Claims{ClusterID: "c-1"})
	if _, err := k.Rotate(); err != nil {
		t.Fatal(err)
	}
	raw, err := k.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	again, _ := k.Marshal()
	if string(raw) != string(again) {
		t.Error("Marshal is not deterministic")
	}
	k2, err := UnmarshalKeyRing(raw, WithClock(clk.now))
	if err != nil {
		t.Fatal(err)
	}
	if k2.ActiveKID() != k.ActiveKID() || fmt.Sprint(k2.KIDs()) != fmt.Sprint(k.KIDs()) {
		t.Fatalf("ring %v, want %v", k2, k)
	}
	if c, err := k2.Verify(oldTok); err != nil || c.ClusterID != "c-1" {
		t.Errorf("old token after unmarshal: %+v %v", c, err)
	}
	if _, err := k.Verify(sign(t, k2, Claims{InfraEnvID: "x"})); err != nil {
		t.Errorf("token of the unmarshalled ring: %v", err)
	}
	empty, err := NewKeyRing().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := UnmarshalKeyRing(empty); err != nil {
		t.Errorf("empty ring: %v", err)
	}
}

func TestUnmarshalRefuses(t *testing.T) {
	k, _ := newRing(t)
	good, _ := k.Marshal()
	var w wireRing
	mustDo(t, json.Unmarshal(good, &w))
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	rsaDER, _ := x509.MarshalPKCS8PrivateKey(rsaKey)
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	p384DER, _ := x509.MarshalPKCS8PrivateKey(p384)
	mod := func(f func(w *wireRing)) []byte {
		c := w
		c.Keys = append([]wireKey(nil), w.Keys...)
		f(&c)
		b, _ := json.Marshal(c)
		return b
	}
	pemOf := func(der []byte) string {
		return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	}
	cases := map[string][]byte{
		"garbage":        []byte("{"),
		"version":        mod(func(w *wireRing) { w.Version = 2 }),
		"wrong kid":      mod(func(w *wireRing) { w.Keys[0].KID = "abc"; w.Active = "abc" }),
		"duplicate":      mod(func(w *wireRing) { w.Keys = append(w.Keys, w.Keys[0]) }),
		"active missing": mod(func(w *wireRing) { w.Active = "zzz" }),
		"no active":      mod(func(w *wireRing) { w.Active = "" }),
		"rsa key":        mod(func(w *wireRing) { w.Keys[0].PEM = pemOf(rsaDER) }),
		"p384 key":       mod(func(w *wireRing) { w.Keys[0].PEM = pemOf(p384DER) }),
		"not pem":        mod(func(w *wireRing) { w.Keys[0].PEM = "hello" }),
	}
	for name, raw := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := UnmarshalKeyRing(raw)
			if !errors.Is(err, ErrKeyRing) {
				t.Fatalf("err = %v, want ErrKeyRing", err)
			}
			if strings.Contains(err.Error(), "PRIVATE KEY") {
				t.Errorf("error shows key material: %v", err)
			}
		})
	}
}

func TestKeyRingPrintsNoKeys(t *testing.T) {
	k, _ := newRing(t)
	rk, _ := k.activeKey()
	d, _ := rk.priv.Bytes()
	for _, s := range []string{fmt.Sprint(k), fmt.Sprintf("%v %+v %#v %s", k, k, k, k)} {
		if !strings.Contains(s, rk.kid) || strings.Contains(s, rk.priv.D.String()) ||
			strings.Contains(s, base64.RawURLEncoding.EncodeToString(d)) {
			t.Errorf("printed ring %q: want its kid and no key", s)
		}
	}
}

// header decodes a JWT's header.
func header(t *testing.T, tok string) map[string]any {
	t.Helper()
	h, _, _ := strings.Cut(tok, ".")
	raw, err := base64.RawURLEncoding.DecodeString(h)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	mustDo(t, json.Unmarshal(raw, &m))
	return m
}

// craft signs claims with any method and key, optionally lying about alg.
func craft(t *testing.T, m jwt.SigningMethod, key any, kid string, c jwt.MapClaims, alg ...string) string {
	t.Helper()
	tok := jwt.NewWithClaims(m, c)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	if len(alg) > 0 {
		tok.Header["alg"] = alg[0]
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// tamper swaps the payload for one naming another infra-env.
func tamper(t *testing.T, tok string) string {
	t.Helper()
	parts := strings.Split(tok, ".")
	parts[1] = base64.RawURLEncoding.EncodeToString([]byte(`{"infra_env_id":"someone-else"}`))
	return strings.Join(parts, ".")
}

func pemPublic(t *testing.T, pub *ecdsa.PublicKey) []byte {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// noLeak fails when err's text holds a recognisable piece of token.
func noLeak(t *testing.T, err error, token string) {
	t.Helper()
	if err == nil || len(token) < 8 {
		return
	}
	for _, part := range strings.Split(token, ".") {
		if len(part) >= 8 && strings.Contains(err.Error(), part) {
			t.Errorf("error %q contains token text %q", err, part)
		}
	}
}
