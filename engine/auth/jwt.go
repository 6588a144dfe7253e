package auth

import (
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// MaxTokenLen bounds every token accepted; longer input is refused before
// any parsing.
const MaxTokenLen = 4096

// leeway tolerates clock skew between appliances for iat and exp.
const leeway = time.Minute

// Claims are what an agent token says: the infra-env (or cluster) it is
// scoped to, as assisted-service's api_key claims name them, a subject, and
// when it was issued and expires (zero: never).
type Claims struct {
	InfraEnvID string
	ClusterID  string
	// HostID makes the token host-scoped (see NewHostToken): Verify
	// refuses it, only VerifyHost accepts it.
	HostID    string
	Subject   string
	IssuedAt  time.Time
	ExpiresAt time.Time
}

// wireClaims is the JWT payload.
type wireClaims struct {
	InfraEnvID string `json:"infra_env_id,omitempty"`
	ClusterID  string `json:"cluster_id,omitempty"`
	HostID     string `json:"host_id,omitempty"`
	jwt.RegisteredClaims
}

// Sign returns a compact ES256 JWT of c signed by the active key, with the
// key's kid in the header. IssuedAt defaults to the ring's clock. c must
// name an infra-env or a cluster.
func (k *KeyRing) Sign(c Claims) (string, error) {
	if c.InfraEnvID == "" && c.ClusterID == "" {
		return "", fmt.Errorf("%w: claims name neither an infra-env nor a cluster", ErrInvalidToken)
	}
	rk, err := k.activeKey()
	if err != nil {
		return "", err
	}
	if c.IssuedAt.IsZero() {
		c.IssuedAt = k.now()
	}
	if c.HostID != "" && c.InfraEnvID == "" {
		return "", fmt.Errorf("%w: a host-scoped token needs its infra-env", ErrInvalidToken)
	}
	w := wireClaims{InfraEnvID: c.InfraEnvID, ClusterID: c.ClusterID, HostID: c.HostID}
	w.Subject = c.Subject
	w.IssuedAt = jwt.NewNumericDate(c.IssuedAt)
	if !c.ExpiresAt.IsZero() {
		w.ExpiresAt = jwt.NewNumericDate(c.ExpiresAt)
	}
	t := jwt.NewWithClaims(jwt.SigningMethodES256, w)
	t.Header["kid"] = rk.kid
	s, err := t.SignedString(rk.priv)
	if err != nil {
		return "", fmt.Errorf("%w: signing: %w", ErrKeyRing, err)
	}
	return s, nil
}

// Verify checks token and returns its claims. Only ES256 signed by a key
// the ring holds (named by kid) is accepted; expired tokens, tokens issued
// in the future and tokens without an infra_env_id or cluster_id claim are
// refused, and so are host-scoped tokens (VerifyHost takes those). Errors
// wrap ErrInvalidToken, ErrExpiredToken or ErrUnknownKey and never contain
// the token.
func (k *KeyRing) Verify(token string) (Claims, error) {
	c, err := k.verify(token)
	if err == nil && c.HostID != "" {
		return Claims{}, fmt.Errorf("%w: a host-scoped token", ErrInvalidToken)
	}
	return c, err
}

// verify checks token's signature, times and scope claims.
func (k *KeyRing) verify(token string) (Claims, error) {
	if len(token) > MaxTokenLen {
		return Claims{}, fmt.Errorf("%w: longer than %d bytes", ErrInvalidToken, MaxTokenLen)
	}
	p := jwt.NewParser(
		jwt.WithValidMethods([]string{jwt.SigningMethodES256.Alg()}),
		jwt.WithTimeFunc(k.now),
		jwt.WithLeeway(leeway),
		jwt.WithIssuedAt(),
		jwt.WithStrictDecoding(),
	)
	var w wireClaims
	if _, err := p.ParseWithClaims(token, &w, k.keyFunc); err != nil {
		return Claims{}, classify(err)
	}
	if w.InfraEnvID == "" && w.ClusterID == "" {
		return Claims{}, fmt.Errorf("%w: no infra_env_id or cluster_id claim", ErrInvalidToken)
	}
	c := Claims{InfraEnvID: w.InfraEnvID, ClusterID: w.ClusterID, HostID: w.HostID, Subject: w.Subject}
	if w.IssuedAt != nil {
		c.IssuedAt = w.IssuedAt.Time
	}
	if w.ExpiresAt != nil {
		c.ExpiresAt = w.ExpiresAt.Time
	}
	return c, nil
}

// keyFunc picks the verification key by kid, refusing any algorithm but
// ES256 a second time (the parser already did) so a key is never used
// with another algorithm.
func (k *KeyRing) keyFunc(t *jwt.Token) (any, error) {
	if t.Method != jwt.SigningMethodES256 {
		return nil, errBadAlg
	}
	kid, ok := t.Header["kid"].(string)
	if !ok || kid == "" {
		return nil, ErrUnknownKey
	}
	rk, err := k.lookup(kid)
	if err != nil {
		return nil, err
	}
	return &rk.priv.PublicKey, nil
}

var errBadAlg = errors.New("algorithm not allowed")

// classify turns a jwt error into one of a fixed set of messages: the
// library's own texts are dropped, so nothing of the token leaks.
func classify(err error) error {
	switch {
	case errors.Is(err, ErrUnknownKey):
		return ErrUnknownKey
	case errors.Is(err, jwt.ErrTokenExpired):
		return ErrExpiredToken
	case errors.Is(err, jwt.ErrTokenUsedBeforeIssued), errors.Is(err, jwt.ErrTokenNotValidYet):
		return fmt.Errorf("%w: not valid yet", ErrInvalidToken)
	case errors.Is(err, errBadAlg), errors.Is(err, jwt.ErrTokenSignatureInvalid),
		errors.Is(err, jwt.ErrTokenUnverifiable):
		return fmt.Errorf("%w: bad signature or algorithm", ErrInvalidToken)
	default:
		return fmt.Errorf("%w: malformed", ErrInvalidToken)
	}
}
