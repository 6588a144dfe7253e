package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// MaxPathTokenLen bounds a path token: BMCs accept URLs of at most 255
// characters, and the token is one segment of one.
const MaxPathTokenLen = 128

// pathMACLen is the truncated HMAC length (128 bits).
const pathMACLen = 16

// NewPathToken returns a short opaque token for a URL path that lets its
// holder download infra-env infraEnvID's image until expires (zero:
// until the signing key is retired): "<kid>.<expiry base36 or 0>.<mac>",
// unpadded base64url and base36 only, 68 to 73 characters.
func (k *KeyRing) NewPathToken(infraEnvID string, expires time.Time) (string, error) {
	if infraEnvID == "" {
		return "", fmt.Errorf("%w: path token for an empty infra-env id", ErrInvalidToken)
	}
	rk, err := k.activeKey()
	if err != nil {
		return "", err
	}
	exp := "0"
	if !expires.IsZero() {
		exp = strconv.FormatInt(expires.Unix(), 36)
	}
	return rk.kid + "." + exp + "." + pathMAC(rk.pathKey, infraEnvID, exp), nil
}

// VerifyPathToken checks that token was made by NewPathToken for
// infraEnvID (taken from the same URL) with a key the ring still holds and
// has not expired. Errors wrap ErrInvalidToken, ErrExpiredToken or
// ErrUnknownKey and never contain the token.
func (k *KeyRing) VerifyPathToken(token, infraEnvID string) error {
	if len(token) > MaxPathTokenLen {
		return fmt.Errorf("%w: path token longer than %d bytes", ErrInvalidToken, MaxPathTokenLen)
	}
	kid, exp, mac, ok := splitPathToken(token)
	if !ok {
		return fmt.Errorf("%w: malformed path token", ErrInvalidToken)
	}
	rk, err := k.lookup(kid)
	if err != nil {
		return err
	}
	want := pathMAC(rk.pathKey, infraEnvID, exp)
	if !hmac.Equal([]byte(mac), []byte(want)) {
		return fmt.Errorf("%w: path token does not match this infra-env", ErrInvalidToken)
	}
	if exp != "0" {
		unix, err := strconv.ParseInt(exp, 36, 64)
		if err != nil {
			return fmt.Errorf("%w: malformed path token", ErrInvalidToken)
		}
		if !k.now().Before(time.Unix(unix, 0).Add(leeway)) {
			return ErrExpiredToken
		}
	}
	return nil
}

// splitPathToken splits "<kid>.<exp>.<mac>" and checks each part's
// alphabet: base64url for kid and mac, lower-case base36 for exp.
func splitPathToken(token string) (kid, exp, mac string, ok bool) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return "", "", "", false
	}
	kid, exp, mac = parts[0], parts[1], parts[2]
	if kid == "" || exp == "" || len(mac) != base64.RawURLEncoding.EncodedLen(pathMACLen) {
		return "", "", "", false
	}
	if !isBase64URL(kid) || !isBase64URL(mac) || strings.Trim(exp, "0123456789abcdefghijklmnopqrstuvwxyz") != "" {
		return "", "", "", false
	}
	return kid, exp, mac, true
}

// pathMAC is the truncated HMAC-SHA256 of the infra-env id and expiry,
// separated so that no two (id, expiry) pairs share an input.
func pathMAC(key []byte, infraEnvID, exp string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("rackboot-path-token-v1\x00" + exp + "\x00" + infraEnvID))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:pathMACLen])
}

func isBase64URL(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
