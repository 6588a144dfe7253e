package vendorbmc

import (
	"fmt"
	"net/http"
	"path"
	"strings"
)

// pendingMedia is a slot update the BMC answered for but does not show yet.
type pendingMedia struct {
	reads  int
	update map[string]any
}

// delay keeps a slot update for m.p.mediaDelay reads of the slot.
func (m *BMC) delay(slot string, update map[string]any) {
	m.pending[slot] = pendingMedia{reads: m.p.mediaDelay, update: update}
}

// settle counts one read of p and applies its pending update when due.
func (m *BMC) settle(p string) {
	pm, ok := m.pending[p]
	if !ok {
		return
	}
	if pm.reads--; pm.reads > 0 {
		m.pending[p] = pm
		return
	}
	delete(m.pending, p)
	merge(m.docs[p], pm.update)
}

// action carries out the Reset, InsertMedia, EjectMedia and Dell
// ImportSystemConfiguration actions.
func (m *BMC) action(w http.ResponseWriter, p string, req map[string]any) int {
	res, act, _ := strings.Cut(p, "/Actions/")
	doc, ok := m.docs[res]
	if !ok {
		return redfishError(w, http.StatusNotFound, "Base.1.8.ResourceMissingAtURI", "no such action")
	}
	switch act {
	case "ComputerSystem.Reset":
		return m.reset(w, doc, req)
	case "VirtualMedia.InsertMedia":
		img, _ := req["Image"].(string)
		if img == "" {
			return redfishError(w, http.StatusBadRequest, "Base.1.8.ActionParameterMissing", "Image is required")
		}
		upd := map[string]any{"Image": img, "ImageName": path.Base(img), "Inserted": !m.p.notInserted, "ConnectedVia": "URI"}
		if v, ok := req["Inserted"]; ok {
			upd["Inserted"] = v
		}
		if oem, ok := req["Oem"].(map[string]any); ok {
			upd["Oem"] = oem
		}
		if m.p.mediaDelay > 0 {
			m.delay(res, upd)
		} else {
			merge(doc, upd)
		}
	case "VirtualMedia.EjectMedia":
		delete(m.pending, res)
		doc["Image"], doc["ImageName"], doc["Inserted"], doc["ConnectedVia"] = "", "", false, "NotConnected"
		if hpe := hpeOem(doc); hpe != nil {
			hpe["BootOnNextServerReset"] = false
		}
	case "Oem/EID_674_Manager.ImportSystemConfiguration":
		return m.importConfig(w, res, req)
	default:
		return redfishError(w, http.StatusNotFound, "Base.1.8.ActionNotSupported", "unknown action "+act)
	}
	w.WriteHeader(http.StatusNoContent)
	return http.StatusNoContent
}

func (m *BMC) reset(w http.ResponseWriter, sys, req map[string]any) int {
	rt, _ := req["ResetType"].(string)
	on := sys["PowerState"] == "On"
	if rt == "On" && on {
		return redfishError(w, http.StatusConflict, "IDRAC.2.8.PSU501", "Unable to perform the operation because the server is already powered on.")
	}
	switch rt {
	case "On", "ForceOn":
		if !on {
			m.boot(sys)
		}
		sys["PowerState"] = "On"
	case "ForceRestart", "PowerCycle", "GracefulRestart":
		m.boot(sys)
		sys["PowerState"] = "On"
	case "ForceOff", "GracefulShutdown":
		sys["PowerState"] = "Off"
	case "PushPowerButton":
		if on {
			sys["PowerState"] = "Off"
		} else {
			m.boot(sys)
			sys["PowerState"] = "On"
		}
	default:
		return redfishError(w, http.StatusBadRequest, "Base.1.8.ActionParameterValueNotInList", fmt.Sprintf("bad ResetType %v", req["ResetType"]))
	}
	w.WriteHeader(http.StatusNoContent)
	return http.StatusNoContent
}

// importConfig takes the iDRAC's ServerBoot.1#BootOnce and
// ServerBoot.1#FirstBootDevice attributes from a Server Configuration
// Profile, and answers 202 with a job that is already completed.
func (m *BMC) importConfig(w http.ResponseWriter, mgr string, req map[string]any) int {
	buf, _ := req["ImportBuffer"].(string)
	if !strings.Contains(buf, `<Attribute Name="ServerBoot.1#BootOnce">Enabled</Attribute>`) ||
		!strings.Contains(buf, `<Attribute Name="ServerBoot.1#FirstBootDevice">VCD-DVD</Attribute>`) {
		return redfishError(w, http.StatusBadRequest, "IDRAC.2.8.SYS405", "Unable to apply the configuration changes because an import buffer is invalid.")
	}
	m.oemBootCD = true
	job := mgr + "/Jobs/JID_000000000001"
	m.docs[job] = map[string]any{"@odata.id": job, "Id": "JID_000000000001", "JobState": "Completed",
		"Message": "Successfully imported and applied Server Configuration Profile.", "PercentComplete": 100.0}
	w.Header().Set("Location", job)
	w.WriteHeader(http.StatusAccepted)
	return http.StatusAccepted
}

// boot records what the machine boots at this power-on and clears a
// one-time override.
func (m *BMC) boot(sys map[string]any) {
	m.boots = append(m.boots, m.bootTarget(sys))
	m.oemBootCD = false
	if boot, ok := sys["Boot"].(map[string]any); ok && boot["BootSourceOverrideEnabled"] == "Once" {
		boot["BootSourceOverrideEnabled"], boot["BootSourceOverrideTarget"] = "Disabled", "None"
	}
	for _, p := range m.cdSlots() {
		if hpe := hpeOem(m.docs[p]); hpe != nil {
			hpe["BootOnNextServerReset"] = false
		}
	}
}

func (m *BMC) bootTarget(sys map[string]any) string {
	cd := m.insertedCD()
	if m.oemBootCD && cd != "" {
		return "cd " + cd
	}
	if m.p.hpeBootFlag && cd != "" && m.hpeFlag() {
		return "cd " + cd
	}
	boot, _ := sys["Boot"].(map[string]any)
	if en := boot["BootSourceOverrideEnabled"]; en != "Once" && en != "Continuous" {
		return "disk"
	}
	target, _ := boot["BootSourceOverrideTarget"].(string)
	if m.p.uefiOnly {
		switch target {
		case "Pxe", "Cd":
			return "disk" // legacy targets: no CSM on this board
		}
		target = strings.TrimPrefix(target, "Uefi")
	}
	switch target {
	case "Pxe":
		return "pxe"
	case "Http":
		return "http"
	case "Cd":
		if cd != "" && !m.p.hpeBootFlag {
			return "cd " + cd
		}
	}
	return "disk"
}

// cdSlots are the paths of the slots that take a CD.
func (m *BMC) cdSlots() []string {
	var out []string
	for p, doc := range m.docs {
		types, _ := doc["MediaTypes"].([]any)
		for _, t := range types {
			if t == "CD" {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// insertedCD is the image in a CD slot, or "".
func (m *BMC) insertedCD() string {
	for _, p := range m.cdSlots() {
		doc := m.docs[p]
		if img, _ := doc["Image"].(string); img != "" && doc["Inserted"] == true {
			return img
		}
	}
	return ""
}

func (m *BMC) hpeFlag() bool {
	for _, p := range m.cdSlots() {
		if hpe := hpeOem(m.docs[p]); hpe != nil && hpe["BootOnNextServerReset"] == true {
			return true
		}
	}
	return false
}

// hpeOem is a resource's Oem.Hpe object, or nil.
func hpeOem(doc map[string]any) map[string]any {
	oem, _ := doc["Oem"].(map[string]any)
	hpe, _ := oem["Hpe"].(map[string]any)
	return hpe
}
