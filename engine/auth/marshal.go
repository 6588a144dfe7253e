package auth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
)

// keyRingVersion is the version of the marshalled form.
const keyRingVersion = 1

type wireRing struct {
	Version int       `json:"version"`
	Active  string    `json:"active"`
	Keys    []wireKey `json:"keys"`
}

type wireKey struct {
	KID string `json:"kid"`
	PEM string `json:"pem"` // PKCS#8 "PRIVATE KEY"
}

// Marshal encodes the ring — private keys included, so the result is a
// secret — as JSON: {"version":1,"active":kid,"keys":[{"kid","pem"}]},
// keys oldest first, each a PKCS#8 PEM block. The output is deterministic.
func (k *KeyRing) Marshal() ([]byte, error) {
	k.mu.RLock()
	defer k.mu.RUnlock()
	w := wireRing{Version: keyRingVersion, Active: k.active, Keys: make([]wireKey, 0, len(k.keys))}
	for _, rk := range k.keys {
		der, err := x509.MarshalPKCS8PrivateKey(rk.priv)
		if err != nil {
			return nil, fmt.Errorf("%w: encoding key %s: %w", ErrKeyRing, rk.kid, err)
		}
		p := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
		w.Keys = append(w.Keys, wireKey{KID: rk.kid, PEM: string(p)})
	}
	return json.Marshal(w)
}

// UnmarshalKeyRing decodes what Marshal wrote. It checks every key is
// P-256 and matches its kid, kids are unique, and the active kid is held
// (or the ring is empty). Errors name the key by index, never its bytes.
func UnmarshalKeyRing(data []byte, opts ...Option) (*KeyRing, error) {
	var w wireRing
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("%w: decoding: not a key ring document", ErrKeyRing)
	}
	if w.Version != keyRingVersion {
		return nil, fmt.Errorf("%w: version %d, want %d", ErrKeyRing, w.Version, keyRingVersion)
	}
	k := NewKeyRing(opts...)
	seen := map[string]bool{}
	for i, wk := range w.Keys {
		rk, err := decodeKey(wk.PEM)
		if err != nil {
			return nil, fmt.Errorf("%w: keys[%d]: %w", ErrKeyRing, i, err)
		}
		if rk.kid != wk.KID {
			return nil, fmt.Errorf("%w: keys[%d]: kid %q does not match the key (thumbprint %s)", ErrKeyRing, i, wk.KID, rk.kid)
		}
		if seen[rk.kid] {
			return nil, fmt.Errorf("%w: keys[%d]: duplicate kid %s", ErrKeyRing, i, rk.kid)
		}
		seen[rk.kid] = true
		k.keys = append(k.keys, rk)
	}
	if (len(k.keys) > 0 || w.Active != "") && !seen[w.Active] {
		return nil, fmt.Errorf("%w: active kid %q is not among the keys", ErrKeyRing, w.Active)
	}
	k.active = w.Active
	return k, nil
}

func decodeKey(s string) (ringKey, error) {
	b, rest := pem.Decode([]byte(s))
	if b == nil || b.Type != "PRIVATE KEY" || len(rest) != 0 {
		return ringKey{}, fmt.Errorf("not one PKCS#8 PEM block")
	}
	key, err := x509.ParsePKCS8PrivateKey(b.Bytes)
	if err != nil {
		return ringKey{}, fmt.Errorf("not a PKCS#8 private key")
	}
	priv, ok := key.(*ecdsa.PrivateKey)
	if !ok || priv.Curve != elliptic.P256() {
		return ringKey{}, fmt.Errorf("not an ECDSA P-256 key")
	}
	return newRingKey(priv)
}

// Replace makes k hold exactly the keys of data (what Marshal wrote), for
// a node that follows the ring another node rotated. A document that does
// not decode leaves k as it was.
func (k *KeyRing) Replace(data []byte) error {
	n, err := UnmarshalKeyRing(data)
	if err != nil {
		return err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.keys, k.active = n.keys, n.active
	return nil
}
