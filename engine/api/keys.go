package api

import (
	"net/http"

	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/engine/signingkeys"
)

// Event names of the signing-keys endpoints (engine/signingkeys).
const (
	eventKeyRotated = signingkeys.EventRotated
	eventKeyRetired = signingkeys.EventRetired
)

// listKeys answers GET /v2/signing-keys.
func (s *server) listKeys(w http.ResponseWriter, _ *http.Request, _ auth.Principal) error {
	writeJSON(w, http.StatusOK, s.currentKeys())
	return nil
}

func (s *server) currentKeys() models.SigningKeys {
	active, kids := s.signingKeys.Current()
	return models.SigningKeys{ActiveKID: active, KIDs: kids}
}

// rotateKey answers POST /v2/signing-keys/actions/rotate: a new key signs
// from now on, the keys held before keep verifying until retired.
func (s *server) rotateKey(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	if err := s.signingKeys.Rotate(r.Context(), p.String()); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.currentKeys())
	return nil
}

// retireKey answers DELETE /v2/signing-keys/{kid}: tokens signed with kid
// are refused afterwards (the active key: 409, an unknown kid: 404).
func (s *server) retireKey(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	if err := s.signingKeys.Retire(r.Context(), r.PathValue("kid"), p.String()); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
