// Package auth holds rackboot's credentials and checks them: the admin
// bearer token of the user API, the ES256 JWTs scoped to one infra-env (or
// cluster) that every URL handed to a host carries and that agents present
// (like assisted-service's api_key), short opaque path tokens for BMC ISO
// URLs, and the request helpers that turn an *http.Request into a Principal.
//
// Admin token: LoadOrCreateAdminToken creates <data_dir>/admin-token (mode
// 0600, 32 random bytes, base64url) on first start and reads it afterwards,
// refusing a file that group or others can read. It is accepted only from
// an `Authorization: Bearer` header, never from a URL, and compared in
// constant time (TokenEqual).
//
// Agent tokens: a KeyRing holds ECDSA P-256 keys named by their RFC 7638
// JWK thumbprint (the JWT `kid` header). One key signs; older keys keep
// verifying after Rotate until Retire removes them. Verify accepts only
// ES256 with a known kid, rejects expired tokens and tokens issued in the
// future, and requires an infra_env_id or cluster_id claim. The ring is
// marshalled (Marshal, UnmarshalKeyRing) as JSON holding PKCS#8 PEM keys so
// the engine can keep it as a secret in its replicated state; a KeyRing
// prints as its kids only, never its keys.
//
// Path tokens (NewPathToken, VerifyPathToken) are stateless:
// "<kid>.<expiry>.<mac>" where mac is HMAC-SHA256, truncated to 128 bits,
// of the infra-env id and expiry under a key derived (HKDF) from ring key
// kid. They are 68 to 73 URL-safe characters, so an ISO URL such as
// <base>/images/<infra-env-id>/<token>/discovery.iso stays far below the
// 255 characters BMCs accept, without a query string. They are scoped: the
// verifier is given the infra-env id from the URL and the mac binds it.
// Nothing is stored per token; rotating and retiring the key revokes them.
//
// Errors come from a fixed set of messages wrapping this package's
// sentinels (ErrNoCredentials, ErrInvalidToken, ErrExpiredToken,
// ErrUnknownKey, ErrForbidden, …): they never contain token text, and
// HTTPStatus maps them to 401 or 403.
package auth
