package models

// SigningKeys is the answer of the signing-keys endpoints (a rackboot
// extension): the kids of the keys that verify tokens, oldest first, and
// the kid of the one that signs new tokens. It never carries key material.
type SigningKeys struct {
	ActiveKID string   `json:"active_kid"`
	KIDs      []string `json:"kids"`
}
