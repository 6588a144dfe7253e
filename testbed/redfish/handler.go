package redfish

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"strings"
)

// maxBody bounds a request body.
const maxBody = 64 << 10

// ServeHTTP serves the Redfish tree under /redfish.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p := r.URL.Path; len(p) > 1 && strings.HasSuffix(p, "/") {
		r.URL.Path = strings.TrimRight(p, "/")
	}
	open := r.URL.Path == "/redfish" || r.URL.Path == "/redfish/v1" ||
		r.Method == http.MethodPost && r.URL.Path == sessionsPath
	if !open && !s.authorized(r) && !s.sessions.valid(r.Header.Get("X-Auth-Token")) {
		w.Header().Set("WWW-Authenticate", `Basic realm="rackboot testbed BMC"`)
		writeError(w, http.StatusUnauthorized, "Base.1.0.InsufficientPrivilege", "authentication required")
		return
	}
	w.Header().Set("OData-Version", "4.0")
	s.mux.ServeHTTP(w, r)
}

func (s *Service) routes() *http.ServeMux {
	m := http.NewServeMux()
	m.HandleFunc("GET /redfish", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, r, map[string]string{"v1": "/redfish/v1/"})
	})
	m.HandleFunc("GET /redfish/v1", s.get(func(*http.Request) (any, error) { return s.serviceRoot(), nil }))
	m.HandleFunc("GET /redfish/v1/Systems", s.get(func(*http.Request) (any, error) {
		return s.collection("/redfish/v1/Systems", "ComputerSystemCollection", "Computer System Collection"), nil
	}))
	m.HandleFunc("GET /redfish/v1/Managers", s.get(func(*http.Request) (any, error) {
		return s.collection("/redfish/v1/Managers", "ManagerCollection", "Manager Collection"), nil
	}))
	m.HandleFunc("GET /redfish/v1/Systems/{id}", s.get(s.systemDoc))
	m.HandleFunc("PATCH /redfish/v1/Systems/{id}", s.patchSystem)
	m.HandleFunc("POST /redfish/v1/Systems/{id}/Actions/ComputerSystem.Reset", s.postReset)
	m.HandleFunc("GET /redfish/v1/Systems/{id}/EthernetInterfaces", s.get(s.nicCollection))
	m.HandleFunc("GET /redfish/v1/Systems/{id}/EthernetInterfaces/{nic}", s.get(s.nicDoc))
	m.HandleFunc("GET /redfish/v1/Managers/{id}", s.get(s.managerDoc))
	for _, base := range []string{"/redfish/v1/Managers/{id}", "/redfish/v1/Systems/{id}"} {
		m.HandleFunc("GET "+base+"/VirtualMedia", s.get(s.mediaCollection))
		m.HandleFunc("GET "+base+"/VirtualMedia/{slot}", s.get(s.mediaDoc))
		m.HandleFunc("PATCH "+base+"/VirtualMedia/{slot}", s.patchMedia)
		m.HandleFunc("POST "+base+"/VirtualMedia/{slot}/Actions/VirtualMedia.InsertMedia", s.postInsert)
		m.HandleFunc("POST "+base+"/VirtualMedia/{slot}/Actions/VirtualMedia.EjectMedia", s.postEject)
	}
	s.sessionRoutes(m)
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "Base.1.0.ResourceMissingAtURI", "no resource at "+r.URL.Path)
	})
	return m
}

// get serves the document doc returns, with an ETag.
func (s *Service) get(doc func(*http.Request) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v, err := doc(r)
		if err != nil {
			s.fail(w, err)
			return
		}
		writeJSON(w, r, v)
	}
}

// readBody decodes a JSON object body into v; an empty body is {}.
func readBody(r *http.Request, v any) error {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	return decodeBody(body, v)
}

// decodeBody decodes a request body: a JSON object of at most maxBody
// bytes with nothing after it.
func decodeBody(body []byte, v any) error {
	if len(body) > maxBody {
		return fmt.Errorf("%w: body larger than %d bytes", ErrBadRequest, maxBody)
	}
	if strings.TrimSpace(string(body)) == "" {
		body = []byte("{}")
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: malformed JSON: %w", ErrBadRequest, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: trailing data after the JSON object", ErrBadRequest)
	}
	return nil
}

// etag is a weak ETag of a document's JSON.
func etag(b []byte) string {
	h := fnv.New64a()
	h.Write(b)
	return fmt.Sprintf(`W/"%x"`, h.Sum64())
}

// checkIfMatch answers 412 and returns false when r's If-Match names
// another version of the document current returns.
func (s *Service) checkIfMatch(w http.ResponseWriter, r *http.Request, current func(*http.Request) (any, error)) bool {
	want := r.Header.Get("If-Match")
	if want == "" || want == "*" {
		return true
	}
	v, err := current(r)
	if err != nil {
		s.fail(w, err)
		return false
	}
	b, _ := json.Marshal(v)
	if want != etag(b) {
		writeError(w, http.StatusPreconditionFailed, "Base.1.0.PreconditionFailed", "the resource changed (If-Match)")
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, _ *http.Request, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "Base.1.0.InternalError", err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("ETag", etag(b))
	w.Write(b)
}

// writeBody writes v as JSON after the status line.
func writeBody(w http.ResponseWriter, v any) {
	json.NewEncoder(w).Encode(v)
}

// fail maps an error to a Redfish error answer.
func (s *Service) fail(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, ErrNotFound):
		writeError(w, http.StatusNotFound, "Base.1.0.ResourceMissingAtURI", err.Error())
	case errors.Is(err, ErrBadRequest):
		writeError(w, http.StatusBadRequest, "Base.1.0.PropertyValueNotInList", err.Error())
	case errors.Is(err, ErrMedia):
		writeError(w, http.StatusBadRequest, "Base.1.0.ActionParameterValueError", err.Error())
	default:
		s.log.Warn("request failed", "err", err)
		writeError(w, http.StatusInternalServerError, "Base.1.0.InternalError", err.Error())
	}
}

func writeError(w http.ResponseWriter, code int, id, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"code":    id,
		"message": msg,
		"@Message.ExtendedInfo": []map[string]string{{
			"@odata.type": "#Message.v1_1_1.Message", "MessageId": id, "Message": msg,
			"Severity": "Warning", "Resolution": "Correct the request and resubmit it.",
		}},
	}})
}
