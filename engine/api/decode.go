package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// Body limits: user documents (an Ignition override fits in 256 KiB) and
// step replies (an inventory with many disks and interfaces).
const (
	maxBody      = 1 << 20
	maxReplyBody = 4 << 20
)

// decode reads r's body (at most limit bytes) into v as one JSON value.
// Unknown fields are ignored, as upstream does.
func decode(w http.ResponseWriter, r *http.Request, limit int64, v any) error {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
		}
		return badRequest("reading body: %v", err)
	}
	return decodeBytes(data, v)
}

// decodeBytes decodes one JSON value from data into v.
func decodeBytes(data []byte, v any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return badRequest("empty body, want a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return badRequest("invalid JSON body: %s", jsonReason(err))
	}
	if dec.More() {
		return badRequest("invalid JSON body: data after the JSON value")
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); err != io.EOF {
		return badRequest("invalid JSON body: data after the JSON value")
	}
	return nil
}

// jsonReason explains a decoding error without echoing the input.
func jsonReason(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("syntax error at byte %d", se.Offset)
	case errors.As(err, &te):
		if te.Field != "" {
			return fmt.Sprintf("field %q must be %s, not %s", te.Field, te.Type, te.Value)
		}
		return fmt.Sprintf("want %s, not %s", te.Type, te.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "unexpected end of JSON"
	}
	return "cannot decode"
}
