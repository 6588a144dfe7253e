package auth

import (
	"fmt"
	"net/http"
	"strings"
)

// Header and query names carrying tokens, as assisted-service names them.
const (
	HeaderAuthorization = "Authorization"
	HeaderAgentKey      = "X-Secret-Key"
	HeaderImageToken    = "Image-Token"
	QueryAPIKey         = "api_key"
	QueryImageToken     = "image_token"
)

// Source says where a request carried its token.
type Source int

// Token sources, in order of precedence.
const (
	SourceNone       Source = iota
	SourceBearer            // Authorization: Bearer <token>
	SourceAgentKey          // X-Secret-Key header (the agent)
	SourceImageToken        // Image-Token header
	SourceAPIKey            // api_key query parameter
	SourceImageQuery        // image_token query parameter
)

// String names the source as it appears on the wire.
func (s Source) String() string {
	switch s {
	case SourceBearer:
		return "Authorization header"
	case SourceAgentKey:
		return HeaderAgentKey + " header"
	case SourceImageToken:
		return HeaderImageToken + " header"
	case SourceAPIKey:
		return QueryAPIKey + " query parameter"
	case SourceImageQuery:
		return QueryImageToken + " query parameter"
	default:
		return "none"
	}
}

// Credential is the token a request carries and where.
type Credential struct {
	Token  string
	Source Source
}

// ParseBearer returns the token of an Authorization header value
// "Bearer <token68>" (scheme case-insensitive). An empty value is
// ErrNoCredentials; anything else malformed is ErrInvalidToken.
func ParseBearer(header string) (string, error) {
	h := strings.TrimSpace(header)
	if h == "" {
		return "", ErrNoCredentials
	}
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", fmt.Errorf("%w: authorization scheme is not Bearer", ErrInvalidToken)
	}
	tok = strings.TrimLeft(tok, " ")
	if err := checkTokenChars(tok); err != nil {
		return "", err
	}
	return tok, nil
}

// checkTokenChars accepts RFC 6750 b64token: 1*(ALPHA / DIGIT / "-" / "." /
// "_" / "~" / "+" / "/") *"=", at most MaxTokenLen bytes.
func checkTokenChars(tok string) error {
	if tok == "" {
		return fmt.Errorf("%w: empty token", ErrInvalidToken)
	}
	if len(tok) > MaxTokenLen {
		return fmt.Errorf("%w: longer than %d bytes", ErrInvalidToken, MaxTokenLen)
	}
	body := strings.TrimRight(tok, "=")
	if body == "" {
		return fmt.Errorf("%w: characters not allowed in a token", ErrInvalidToken)
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' ||
			strings.IndexByte("-._~+/", c) >= 0) {
			return fmt.Errorf("%w: characters not allowed in a token", ErrInvalidToken)
		}
	}
	return nil
}

// CredentialFromRequest finds the token of r: the Authorization bearer
// token, the X-Secret-Key or Image-Token header, or the api_key or
// image_token query parameter. Empty values count as absent (the upstream
// agent may send an empty X-Secret-Key). No token is ErrNoCredentials;
// different tokens in different places are ErrAmbiguousCredentials; the
// same token repeated is fine and reported with its first source.
func CredentialFromRequest(r *http.Request) (Credential, error) {
	var found Credential
	add := func(tok string, src Source) error {
		if tok == "" {
			return nil
		}
		if err := checkTokenChars(tok); err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
		switch {
		case found.Source == SourceNone:
			found = Credential{Token: tok, Source: src}
		case !TokenEqual(tok, found.Token):
			return fmt.Errorf("%w: %s and %s differ", ErrAmbiguousCredentials, found.Source, src)
		}
		return nil
	}
	if vs := r.Header.Values(HeaderAuthorization); len(vs) > 0 {
		if len(vs) > 1 {
			return Credential{}, fmt.Errorf("%w: several Authorization headers", ErrAmbiguousCredentials)
		}
		tok, err := ParseBearer(vs[0])
		if err != nil && err != ErrNoCredentials {
			return Credential{}, err
		}
		if err := add(tok, SourceBearer); err != nil {
			return Credential{}, err
		}
	}
	q := r.URL.Query()
	for _, c := range []struct {
		vals []string
		src  Source
	}{
		{r.Header.Values(HeaderAgentKey), SourceAgentKey},
		{r.Header.Values(HeaderImageToken), SourceImageToken},
		{q[QueryAPIKey], SourceAPIKey},
		{q[QueryImageToken], SourceImageQuery},
	} {
		for _, v := range c.vals {
			if err := add(strings.TrimSpace(v), c.src); err != nil {
				return Credential{}, err
			}
		}
	}
	if found.Source == SourceNone {
		return Credential{}, ErrNoCredentials
	}
	return found, nil
}
