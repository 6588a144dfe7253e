package auth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// pathKeyInfo is the HKDF info string deriving a ring key's path-token key.
const pathKeyInfo = "rackboot path token v1"

// KeyRing holds the ECDSA P-256 keys that sign and verify agent tokens and
// path tokens: one active key signs, every key held verifies. It is safe
// for concurrent use. Printing a KeyRing shows its kids, never its keys.
type KeyRing struct {
	now func() time.Time

	mu     sync.RWMutex
	keys   []ringKey // oldest first
	active string
}

type ringKey struct {
	kid     string
	priv    *ecdsa.PrivateKey
	pathKey []byte
}

// Option configures a KeyRing.
type Option func(*KeyRing)

// WithClock makes the ring read time from now (issued-at of new tokens,
// expiry checks) instead of time.Now.
func WithClock(now func() time.Time) Option {
	return func(k *KeyRing) { k.now = now }
}

// NewKeyRing returns an empty ring; Generate gives it its first key.
func NewKeyRing(opts ...Option) *KeyRing {
	k := &KeyRing{now: time.Now}
	for _, o := range opts {
		o(k)
	}
	return k
}

// Generate makes sure the ring has an active key, creating one when the
// ring is empty, and returns the active key's kid.
func (k *KeyRing) Generate() (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.active != "" {
		return k.active, nil
	}
	return k.addNewLocked()
}

// Rotate creates a new key and makes it the active one; the keys held
// before keep verifying until retired. It returns the new kid.
func (k *KeyRing) Rotate() (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.addNewLocked()
}

func (k *KeyRing) addNewLocked() (string, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", fmt.Errorf("%w: generating key: %w", ErrKeyRing, err)
	}
	rk, err := newRingKey(priv)
	if err != nil {
		return "", err
	}
	k.keys = append(k.keys, rk)
	k.active = rk.kid
	return rk.kid, nil
}

func newRingKey(priv *ecdsa.PrivateKey) (ringKey, error) {
	if priv.Curve != elliptic.P256() {
		return ringKey{}, fmt.Errorf("%w: key is not on curve P-256", ErrKeyRing)
	}
	kid, err := Thumbprint(&priv.PublicKey)
	if err != nil {
		return ringKey{}, err
	}
	d, err := priv.Bytes()
	if err != nil {
		return ringKey{}, fmt.Errorf("%w: %w", ErrKeyRing, err)
	}
	pk, err := hkdf.Key(sha256.New, d, nil, pathKeyInfo, 32)
	if err != nil {
		return ringKey{}, fmt.Errorf("%w: deriving path key: %w", ErrKeyRing, err)
	}
	return ringKey{kid: kid, priv: priv, pathKey: pk}, nil
}

// Retire removes the key kid: tokens it signed stop verifying. The active
// key cannot be retired (Rotate first); an unknown kid is ErrUnknownKey.
func (k *KeyRing) Retire(kid string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if kid == k.active {
		return fmt.Errorf("%w: cannot retire the active key %s; rotate first", ErrKeyRing, kid)
	}
	i := slices.IndexFunc(k.keys, func(rk ringKey) bool { return rk.kid == kid })
	if i < 0 {
		return fmt.Errorf("%w: %s", ErrUnknownKey, kid)
	}
	k.keys = slices.Delete(k.keys, i, i+1)
	return nil
}

// ActiveKID is the kid of the signing key, "" for an empty ring.
func (k *KeyRing) ActiveKID() string {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return k.active
}

// KIDs lists the kids of every key held, oldest first.
func (k *KeyRing) KIDs() []string {
	k.mu.RLock()
	defer k.mu.RUnlock()
	out := make([]string, len(k.keys))
	for i, rk := range k.keys {
		out[i] = rk.kid
	}
	return out
}

// String shows the kids, never the keys.
func (k *KeyRing) String() string {
	return fmt.Sprintf("KeyRing{active: %q, kids: [%s]}", k.ActiveKID(), strings.Join(k.KIDs(), " "))
}

// GoString keeps %#v from printing private keys.
func (k *KeyRing) GoString() string { return k.String() }

// activeKey returns the signing key.
func (k *KeyRing) activeKey() (ringKey, error) {
	k.mu.RLock()
	defer k.mu.RUnlock()
	for _, rk := range k.keys {
		if rk.kid == k.active {
			return rk, nil
		}
	}
	return ringKey{}, fmt.Errorf("%w: no active key (call Generate)", ErrKeyRing)
}

// lookup returns the key kid, or ErrUnknownKey.
func (k *KeyRing) lookup(kid string) (ringKey, error) {
	k.mu.RLock()
	defer k.mu.RUnlock()
	for _, rk := range k.keys {
		if rk.kid == kid {
			return rk, nil
		}
	}
	return ringKey{}, ErrUnknownKey
}

// Thumbprint is the RFC 7638 JWK thumbprint (SHA-256, unpadded base64url)
// of a P-256 public key: the kid rackboot gives it.
func Thumbprint(pub *ecdsa.PublicKey) (string, error) {
	raw, err := pub.Bytes() // 0x04 || X || Y, 32 bytes each on P-256
	if err != nil || len(raw) != 65 {
		return "", fmt.Errorf("%w: not a P-256 public key", ErrKeyRing)
	}
	b64 := base64.RawURLEncoding.EncodeToString
	jwk := `{"crv":"P-256","kty":"EC","x":"` + b64(raw[1:33]) + `","y":"` + b64(raw[33:]) + `"}`
	sum := sha256.Sum256([]byte(jwk))
	return b64(sum[:]), nil
}
