package redfish

import (
	"net/http"
	"strings"
)

func (s *Service) patchSystem(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, err := s.system(id); err != nil {
		s.fail(w, err)
		return
	}
	var body struct {
		Boot *struct {
			Target  string `json:"BootSourceOverrideTarget"`
			Enabled string `json:"BootSourceOverrideEnabled"`
			Mode    string `json:"BootSourceOverrideMode"`
		} `json:"Boot"`
	}
	if err := readBody(r, &body); err != nil {
		s.fail(w, err)
		return
	}
	if body.Boot == nil {
		writeError(w, http.StatusBadRequest, "Base.1.0.PropertyNotWritable", "only Boot can be changed")
		return
	}
	if !s.checkIfMatch(w, r, s.systemDoc) {
		return
	}
	if err := s.SetBoot(id, body.Boot.Target, body.Boot.Enabled, body.Boot.Mode); err != nil {
		s.fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Service) postReset(w http.ResponseWriter, r *http.Request) {
	var body struct {
		ResetType string `json:"ResetType"`
	}
	if err := readBody(r, &body); err != nil {
		s.fail(w, err)
		return
	}
	if err := s.Reset(r.Context(), r.PathValue("id"), body.ResetType); err != nil {
		s.fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// slotOK checks the VirtualMedia slot name: the only one is "Cd".
func (s *Service) slotOK(w http.ResponseWriter, r *http.Request) bool {
	if r.PathValue("slot") != "Cd" {
		writeError(w, http.StatusNotFound, "Base.1.0.ResourceMissingAtURI", "no virtual media slot "+r.PathValue("slot"))
		return false
	}
	return true
}

func (s *Service) postInsert(w http.ResponseWriter, r *http.Request) {
	if !s.slotOK(w, r) {
		return
	}
	var body struct {
		Image                string `json:"Image"`
		Inserted             *bool  `json:"Inserted"`
		TransferProtocolType string `json:"TransferProtocolType"`
	}
	if err := readBody(r, &body); err != nil {
		s.fail(w, err)
		return
	}
	if body.TransferProtocolType != "" && !strings.EqualFold(body.TransferProtocolType, "HTTP") {
		writeError(w, http.StatusBadRequest, "Base.1.0.ActionParameterNotSupported", "only HTTP images are supported")
		return
	}
	if body.Inserted != nil && !*body.Inserted {
		writeError(w, http.StatusBadRequest, "Base.1.0.ActionParameterNotSupported", "InsertMedia with Inserted=false")
		return
	}
	if err := s.Insert(r.Context(), r.PathValue("id"), body.Image); err != nil {
		s.fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Service) postEject(w http.ResponseWriter, r *http.Request) {
	if !s.slotOK(w, r) {
		return
	}
	if err := readBody(r, &struct{}{}); err != nil {
		s.fail(w, err)
		return
	}
	if err := s.Eject(r.Context(), r.PathValue("id")); err != nil {
		s.fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// patchMedia inserts or ejects through PATCH, as Lenovo XCC and iLO 4 do
// it: {"Image": url, "Inserted": true} or {"Image": null, "Inserted": false}.
func (s *Service) patchMedia(w http.ResponseWriter, r *http.Request) {
	if !s.slotOK(w, r) {
		return
	}
	var body struct {
		Image    *string `json:"Image"`
		Inserted *bool   `json:"Inserted"`
	}
	if err := readBody(r, &body); err != nil {
		s.fail(w, err)
		return
	}
	if !s.checkIfMatch(w, r, s.mediaDoc) {
		return
	}
	id := r.PathValue("id")
	var err error
	switch {
	case body.Image != nil && *body.Image != "" && (body.Inserted == nil || *body.Inserted):
		err = s.Insert(r.Context(), id, *body.Image)
	case body.Inserted != nil && !*body.Inserted || body.Image != nil && *body.Image == "":
		err = s.Eject(r.Context(), id)
	case body.Inserted != nil:
		// Inserted=true alone: the image given before stays in.
		if m, _ := s.Media(id); !m.Inserted {
			err = ErrBadRequest
		}
	default:
		writeError(w, http.StatusBadRequest, "Base.1.0.PropertyNotWritable", "only Image and Inserted can be changed")
		return
	}
	if err != nil {
		s.fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
