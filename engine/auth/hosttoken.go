package auth

import (
	"fmt"
	"time"
)

// NewHostToken returns a host-scoped token: an ES256 JWT with the claims
// infra_env_id and host_id, expiring at expires (zero: never). It is what
// an installed host's first boot reports its progress with, and it opens
// nothing else: Verify (and so Authenticate) refuses it; only VerifyHost
// accepts it.
func (k *KeyRing) NewHostToken(infraEnvID, hostID string, expires time.Time) (string, error) {
	if infraEnvID == "" || hostID == "" {
		return "", fmt.Errorf("%w: a host token needs an infra-env and a host", ErrInvalidToken)
	}
	return k.Sign(Claims{InfraEnvID: infraEnvID, HostID: hostID, Subject: "host", ExpiresAt: expires})
}

// VerifyHost checks a host-scoped token (NewHostToken) and returns its
// principal: KindHost with the token's infra-env and host. Any other
// token is ErrInvalidToken.
func (k *KeyRing) VerifyHost(token string) (Principal, error) {
	c, err := k.verify(token)
	if err != nil {
		return Principal{}, err
	}
	if c.HostID == "" || c.InfraEnvID == "" {
		return Principal{}, fmt.Errorf("%w: not a host-scoped token", ErrInvalidToken)
	}
	return Principal{Kind: KindHost, InfraEnvID: c.InfraEnvID, HostID: c.HostID, Subject: c.Subject}, nil
}

// AllowHost returns nil when p may report the progress of host id of
// infra-env ie: the admin, an agent of ie, or the host-scoped token of
// exactly that host.
func (p Principal) AllowHost(ie, id string) error {
	if p.Kind == KindHost {
		if p.InfraEnvID == ie && p.HostID == id {
			return nil
		}
		return fmt.Errorf("%w: %s may not access host %s", ErrForbidden, p, id)
	}
	return p.AllowInfraEnv(ie)
}
