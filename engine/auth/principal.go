package auth

import (
	"fmt"
	"log/slog"
	"net/http"
)

// Kind is who a principal is.
type Kind int

// Principal kinds.
const (
	KindNone  Kind = iota
	KindAdmin      // holder of the admin token: the whole user API
	KindAgent      // holder of an infra-env (or cluster) token
	KindHost       // holder of a host-scoped token: that host's progress only
)

// Principal is the authenticated caller: the admin, or an agent scoped to
// one infra-env (InfraEnvID) or cluster (ClusterID).
type Principal struct {
	Kind       Kind
	InfraEnvID string
	ClusterID  string
	// HostID is the host of a KindHost principal.
	HostID  string
	Subject string
}

// IsAdmin reports whether p holds the admin token.
func (p Principal) IsAdmin() bool { return p.Kind == KindAdmin }

// AllowInfraEnv returns nil when p may act on infra-env id (the admin, or
// an agent whose token names id), else an error wrapping ErrForbidden.
func (p Principal) AllowInfraEnv(id string) error {
	switch {
	case p.Kind == KindAdmin:
		return nil
	case p.Kind == KindAgent && p.InfraEnvID != "" && p.InfraEnvID == id:
		return nil
	}
	return fmt.Errorf("%w: %s may not access infra-env %s", ErrForbidden, p, id)
}

// AllowCluster returns nil when p may act on cluster id (the admin, or an
// agent whose token names id), else an error wrapping ErrForbidden.
func (p Principal) AllowCluster(id string) error {
	switch {
	case p.Kind == KindAdmin:
		return nil
	case p.Kind == KindAgent && p.ClusterID != "" && p.ClusterID == id:
		return nil
	}
	return fmt.Errorf("%w: %s may not access cluster %s", ErrForbidden, p, id)
}

// String names the principal for logs and errors (no secrets).
func (p Principal) String() string {
	switch p.Kind {
	case KindAdmin:
		return "admin"
	case KindAgent:
		if p.InfraEnvID != "" {
			return "agent of infra-env " + p.InfraEnvID
		}
		return "agent of cluster " + p.ClusterID
	case KindHost:
		return "host " + p.HostID
	default:
		return "anonymous"
	}
}

// LogValue logs the principal with infra_env / cluster attributes.
func (p Principal) LogValue() slog.Value {
	attrs := []slog.Attr{slog.String("kind", p.kindName())}
	if p.InfraEnvID != "" {
		attrs = append(attrs, slog.String("infra_env", p.InfraEnvID))
	}
	if p.ClusterID != "" {
		attrs = append(attrs, slog.String("cluster", p.ClusterID))
	}
	if p.HostID != "" {
		attrs = append(attrs, slog.String("host", p.HostID))
	}
	return slog.GroupValue(attrs...)
}

func (p Principal) kindName() string {
	switch p.Kind {
	case KindAdmin:
		return "admin"
	case KindAgent:
		return "agent"
	case KindHost:
		return "host"
	default:
		return "none"
	}
}

// Verifier checks an agent token; *KeyRing is one.
type Verifier interface {
	Verify(token string) (Claims, error)
}

// Authenticate returns the principal of r. The admin token is accepted
// only as an Authorization bearer token (never from a URL, where it would
// end up in logs) and compared in constant time; any other token must be
// an agent JWT that keys verifies. adminToken "" disables the admin; keys
// nil disables agents. Errors wrap this package's sentinels (HTTPStatus
// gives the status) and never contain a token.
func Authenticate(r *http.Request, adminToken string, keys Verifier) (Principal, error) {
	cred, err := CredentialFromRequest(r)
	if err != nil {
		return Principal{}, err
	}
	if cred.Source == SourceBearer && TokenEqual(cred.Token, adminToken) {
		return Principal{Kind: KindAdmin}, nil
	}
	if keys == nil {
		return Principal{}, fmt.Errorf("%w: not the admin token", ErrInvalidToken)
	}
	c, err := keys.Verify(cred.Token)
	if err != nil {
		return Principal{}, fmt.Errorf("%s: %w", cred.Source, err)
	}
	return Principal{Kind: KindAgent, InfraEnvID: c.InfraEnvID, ClusterID: c.ClusterID, Subject: c.Subject}, nil
}
