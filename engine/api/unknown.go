package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"

	"github.com/rackboot/rackboot/engine/jsonfields"
)

// decodeWarn decodes like decode and reports every field of the body that
// v has no place for as an HTTP Warning header (299, as the Kubernetes API
// server warns about unknown fields): a metal3 manifest carries fields
// rackboot does not use (image, userData, …), which are stored nowhere and
// must not be dropped silently.
func decodeWarn(w http.ResponseWriter, r *http.Request, limit int64, v any) error {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
		}
		return badRequest("reading body: %v", err)
	}
	if err := decodeBytes(data, v); err != nil {
		return err
	}
	var raw any
	if json.Unmarshal(data, &raw) == nil {
		for _, f := range jsonfields.Unknown(raw, reflect.TypeOf(v)) {
			w.Header().Add("Warning", fmt.Sprintf("299 - %q", "unknown field "+f+" (ignored by rackboot)"))
		}
	}
	return nil
}
