package vendorbmc

import (
	"bytes"
	"strings"
)

// mediaLayout is where a vendor keeps its virtual media, as Front shows
// it over the emulator, which has a listed slot Cd under both the System
// and the Manager.
type mediaLayout struct {
	// managerOnly: no VirtualMedia under the System (iLO 5, Supermicro
	// X12, Lenovo XCC); clients find it through the System's manager.
	managerOnly bool
	// slot, if set, is the CD slot's id, and the manager's collection
	// lists no slot at all (Supermicro X12: CD1).
	slot string
}

func mediaLayoutOf(vendor string) mediaLayout {
	switch vendor {
	case "hpe-ilo5", "lenovo-xcc":
		return mediaLayout{managerOnly: true}
	case "supermicro-x12":
		return mediaLayout{managerOnly: true, slot: "CD1"}
	}
	return mediaLayout{}
}

// isSystem reports whether p is a ComputerSystem.
func isSystem(p string) bool {
	return strings.HasPrefix(p, "/redfish/v1/Systems/") && strings.Count(p, "/") == 4
}

// slotID is the slot id after /VirtualMedia/ in p, or "".
func slotID(p string) string {
	_, rest, ok := strings.Cut(p, "/VirtualMedia/")
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(rest, "/")
	return id
}

// hidden reports whether the vendor has no resource at p: virtual media
// under a System where the vendor keeps them under the Manager, or the
// emulator's slot Cd where the vendor's slot has another id.
func (l mediaLayout) hidden(p string) bool {
	if l.managerOnly && strings.HasPrefix(p, "/redfish/v1/Systems/") &&
		(strings.HasSuffix(p, "/VirtualMedia") || strings.Contains(p, "/VirtualMedia/")) {
		return true
	}
	return l.slot != "" && slotID(p) == "Cd"
}

// upstream is the emulator's path for the vendor's path p.
func (l mediaLayout) upstream(p string) string {
	if l.slot == "" || slotID(p) != l.slot {
		return p
	}
	return strings.Replace(p, "/VirtualMedia/"+l.slot, "/VirtualMedia/Cd", 1)
}

// relink renames the emulator's slot Cd to the vendor's slot in an answer.
func (l mediaLayout) relink(out []byte) []byte {
	if l.slot == "" {
		return out
	}
	out = bytes.ReplaceAll(out, []byte(`/VirtualMedia/Cd"`), []byte(`/VirtualMedia/`+l.slot+`"`))
	return bytes.ReplaceAll(out, []byte(`/VirtualMedia/Cd/`), []byte(`/VirtualMedia/`+l.slot+`/`))
}

// present makes the document at p the vendor's: a System without
// VirtualMedia, a collection that lists no slot, the slot's own id.
func (l mediaLayout) present(p string, doc map[string]any) {
	if l.managerOnly && isSystem(p) {
		delete(doc, "VirtualMedia")
	}
	if l.slot == "" {
		return
	}
	switch {
	case strings.HasSuffix(p, "/VirtualMedia"):
		doc["Members"], doc["Members@odata.count"] = []any{}, 0
	case slotID(p) == l.slot:
		doc["Id"] = l.slot
	}
}

// short is the vendor's name in Taken's notes.
func (f *Fronted) short() string {
	switch f.vendor {
	case "dell-idrac9", "dell-idrac9-fw4":
		return "idrac"
	case "hpe-ilo5":
		return "ilo"
	case "supermicro-x12":
		return "supermicro"
	case "lenovo-xcc":
		return "xcc"
	}
	return f.vendor
}
