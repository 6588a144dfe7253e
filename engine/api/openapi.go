package api

import (
	_ "embed"
	"net/http"

	"github.com/rackboot/rackboot/engine/auth"
)

// openAPIDoc is the OpenAPI 3 document of exactly the routes of routes()
// (a test checks both ways).
//
//go:embed openapi.json
var openAPIDoc []byte

func (s *server) openAPI(w http.ResponseWriter, _ *http.Request, _ auth.Principal) error {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(openAPIDoc)
	return nil
}
