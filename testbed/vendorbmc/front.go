package vendorbmc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// identity is what a vendor's ComputerSystem says it is.
type identity struct{ manufacturer, model string }

func identityOf(vendor string) (identity, bool) {
	switch vendor {
	case "dell-idrac9", "dell-idrac9-fw4":
		return identity{"Dell Inc.", "PowerEdge R650"}, true
	case "hpe-ilo5":
		return identity{"HPE", "ProLiant DL360 Gen10"}, true
	case "supermicro-x12":
		return identity{"Supermicro", "SYS-120U-TNR"}, true
	case "lenovo-xcc":
		return identity{"Lenovo", "ThinkSystem SR650 V2"}, true
	}
	return identity{}, false
}

// Front puts vendor's personality in front of a Redfish service that is
// not a mockup — the testbed's QEMU emulator (testbed/redfish) — so a real
// VM can be driven as that vendor's machine: the System names the vendor;
// the vendor's refusals are played (iDRAC's read-only slot, iLO's missing
// GracefulShutdown, Supermicro's InsertMedia without Inserted); an
// inserted image shows in the slot only after the vendor's delay (iDRAC,
// Lenovo); Lenovo's slot has no InsertMedia action (it is PATCHed); the
// iDRAC's ImportSystemConfiguration with the virtual-CD boot-once becomes
// a one-time Cd boot; iLO's standard Cd override boots the disk unless the
// media was inserted with Oem.Hpe.BootOnNextServerReset; Supermicro's
// legacy Pxe/Cd targets boot the disk, its UefiPxe/UefiCd the network or
// CD. iLO, Supermicro and the XCC keep their virtual media under the
// Manager only; Supermicro's manager collection lists no slot, and its CD
// slot is CD1 (front_media.go). Taken lists the vendor paths a client
// took. Front returns nil for a vendor it has no personality for.
func Front(next http.Handler, vendor string) *Fronted {
	id, ok := identityOf(vendor)
	if !ok {
		return nil
	}
	return &Fronted{next: next, vendor: vendor, id: id, p: personalityOf(vendor), media: mediaLayoutOf(vendor),
		pending: map[string]int{}, hpeFlag: map[string]bool{}}
}

// Fronted is a vendor's personality in front of a Redfish service; it is
// an http.Handler, safe for concurrent use.
type Fronted struct {
	next   http.Handler
	vendor string
	id     identity
	p      personality
	media  mediaLayout

	mu      sync.Mutex
	pending map[string]int  // slot path → reads before an update shows
	hpeFlag map[string]bool // system id → BootOnNextServerReset set
	taken   []string        // vendor paths taken, in order
}

// Taken returns the vendor paths clients took so far, in order: "idrac:
// OEM boot-once …", "ilo: InsertMedia with Oem.Hpe.BootOnNextServerReset
// …", "supermicro: InsertMedia on the unlisted slot CD1 …", "supermicro:
// boot once UefiCd …", "xcc: slot … PATCHed with an image …".
func (f *Fronted) Taken() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.taken...)
}

// note records a vendor path taken.
func (f *Fronted) note(format string, args ...any) {
	f.taken = append(f.taken, fmt.Sprintf(format, args...))
}

func (f *Fronted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	p := strings.TrimSuffix(r.URL.Path, "/")
	var req map[string]any
	_ = json.Unmarshal(body, &req)
	f.mu.Lock()
	defer f.mu.Unlock()
	if code, msg := f.p.refuse(r.Method, p, req); code != 0 {
		redfishError(w, code, "Base.1.8.ActionParameterUnknown", msg)
		return
	}
	if f.media.hidden(p) {
		redfishError(w, http.StatusNotFound, "Base.1.8.ResourceMissingAtURI", "The resource at the URI "+p+" was not found.")
		return
	}
	if r.Method == http.MethodPost && strings.HasSuffix(p, "/Actions/Oem/EID_674_Manager.ImportSystemConfiguration") {
		f.importConfig(w, r, p, req)
		return
	}
	if r.Method == http.MethodGet && strings.Contains(p, "/Jobs/") {
		writeDoc(w, map[string]any{"@odata.id": p, "JobState": "Completed", "PercentComplete": 100})
		return
	}
	req, body = f.translate(r.Method, p, req, body)
	// iLO's trailing slashes: the emulator has none; Supermicro's CD1 is its Cd.
	r.URL.Path, r.URL.RawPath = f.media.upstream(p), ""
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	rec := &recorder{hdr: http.Header{}}
	f.next.ServeHTTP(rec, r)
	if rec.code/100 == 2 {
		f.after(r.Method, p, req)
	}
	out := rec.body.Bytes()
	if r.Method == http.MethodGet && rec.code == http.StatusOK {
		out = f.rewrite(p, out)
		rec.hdr.Del("Content-Length")
		rec.hdr.Del("ETag") // the document changed
	}
	for k, v := range rec.hdr {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.code)
	_, _ = w.Write(out)
}

// translate turns a request into what the emulator should do for it.
func (f *Fronted) translate(method, p string, req map[string]any, body []byte) (map[string]any, []byte) {
	if method == http.MethodPost && strings.HasSuffix(p, "ComputerSystem.Reset") && req["ResetType"] == "PushPowerButton" {
		req["ResetType"] = "GracefulShutdown" // what the button does to a running OS
		f.note("%s: PushPowerButton on %s", f.short(), systemOfSlot(p))
		b, _ := json.Marshal(req)
		return req, b
	}
	boot, _ := req["Boot"].(map[string]any)
	if method != http.MethodPatch || boot == nil {
		return req, body
	}
	target, _ := boot["BootSourceOverrideTarget"].(string)
	sysID := p[strings.LastIndex(p, "/")+1:]
	switch {
	case f.p.uefiOnly && (target == "Pxe" || target == "Cd"):
		target = "Hdd" // no legacy boot on this board
	case f.p.uefiOnly && (target == "UefiPxe" || target == "UefiCd"):
		f.note("%s: boot once %s on %s", f.short(), target, sysID)
		target = strings.TrimPrefix(target, "Uefi")
	case f.p.hpeBootFlag && target == "Cd" && !f.hpeFlag[sysID]:
		target = "Hdd" // the virtual media boots only with its OEM flag
	}
	boot["BootSourceOverrideTarget"] = target
	delete(boot, "BootSourceOverrideMode") // the emulator's firmware has one mode
	b, _ := json.Marshal(req)
	return req, b
}

// after records what an accepted request changes in the personality.
func (f *Fronted) after(method, p string, req map[string]any) {
	slot, _, _ := strings.Cut(p, "/Actions/")
	switch {
	case method == http.MethodPost && strings.HasSuffix(p, "VirtualMedia.InsertMedia"),
		method == http.MethodPatch && isMedia(p):
		if f.p.mediaDelay > 0 {
			f.pending[slot] = f.p.mediaDelay
		}
		if img, _ := req["Image"].(string); method == http.MethodPatch && img != "" {
			f.note("%s: slot %s PATCHed with an image (no InsertMedia)", f.short(), slot)
		}
		if f.media.slot != "" && slotID(slot) == f.media.slot && method == http.MethodPost {
			f.note("%s: InsertMedia on the unlisted slot %s", f.short(), slot)
		}
		if oem, _ := req["Oem"].(map[string]any); oem != nil {
			if hpe, _ := oem["Hpe"].(map[string]any); hpe != nil && hpe["BootOnNextServerReset"] == true {
				f.hpeFlag[systemOfSlot(slot)] = true
				f.note("%s: InsertMedia with Oem.Hpe.BootOnNextServerReset on %s", f.short(), slot)
			}
		}
	case method == http.MethodPost && strings.HasSuffix(p, "VirtualMedia.EjectMedia"):
		delete(f.pending, slot)
		delete(f.hpeFlag, systemOfSlot(slot))
	}
}

// systemOfSlot is the system id of a slot path (…/Managers/<id>/VirtualMedia/<slot>
// or …/Systems/<id>/VirtualMedia/<slot>): the emulator's manager and
// system share the id.
func systemOfSlot(slot string) string {
	parts := strings.Split(strings.TrimPrefix(slot, "/redfish/v1/"), "/")
	if len(parts) >= 2 {
		return parts[1]
	}
	return ""
}

// importConfig takes the iDRAC's virtual-CD boot-once profile and sets a
// one-time Cd boot on the manager's system.
func (f *Fronted) importConfig(w http.ResponseWriter, r *http.Request, p string, req map[string]any) {
	buf, _ := req["ImportBuffer"].(string)
	if !strings.Contains(buf, `<Attribute Name="ServerBoot.1#BootOnce">Enabled</Attribute>`) ||
		!strings.Contains(buf, `<Attribute Name="ServerBoot.1#FirstBootDevice">VCD-DVD</Attribute>`) {
		redfishError(w, http.StatusBadRequest, "IDRAC.2.8.SYS405", "Unable to apply the configuration changes because an import buffer is invalid.")
		return
	}
	mgr, _, _ := strings.Cut(p, "/Actions/")
	sys := "/redfish/v1/Systems/" + mgr[strings.LastIndex(mgr, "/")+1:]
	b, _ := json.Marshal(map[string]any{"Boot": map[string]any{"BootSourceOverrideTarget": "Cd", "BootSourceOverrideEnabled": "Once"}})
	patch, _ := http.NewRequestWithContext(r.Context(), http.MethodPatch, sys, bytes.NewReader(b))
	patch.Header = r.Header.Clone()
	rec := &recorder{hdr: http.Header{}}
	f.next.ServeHTTP(rec, patch)
	if rec.code/100 != 2 {
		redfishError(w, http.StatusInternalServerError, "IDRAC.2.8.SYS051", "Unable to apply the boot-once setting.")
		return
	}
	f.note("%s: OEM boot-once VCD-DVD through %s (job JID_000000000001)", f.short(), p)
	w.Header().Set("Location", mgr+"/Jobs/JID_000000000001")
	w.WriteHeader(http.StatusAccepted)
}

// rewrite is a GET answer as the vendor gives it.
func (f *Fronted) rewrite(p string, out []byte) []byte {
	var doc map[string]any
	if json.Unmarshal(f.media.relink(out), &doc) != nil {
		return out
	}
	f.media.present(p, doc)
	switch {
	case strings.HasPrefix(p, "/redfish/v1/Systems/") && strings.Count(p, "/") == 4:
		f.system(doc)
	case strings.HasPrefix(p, "/redfish/v1/Managers/") && strings.Count(p, "/") == 4 && strings.HasPrefix(f.vendor, "dell"):
		doc["Actions"] = map[string]any{"Oem": map[string]any{"#OemManager.v1_4_0.OemManager#OemManager.ImportSystemConfiguration": map[string]any{
			"target": p + "/Actions/Oem/EID_674_Manager.ImportSystemConfiguration"}}}
	case isMedia(p):
		if n := f.pending[p]; n > 0 {
			if f.pending[p] = n - 1; n-1 == 0 {
				delete(f.pending, p)
			}
			doc["Image"], doc["Inserted"] = "", false
		}
		if f.vendor == "lenovo-xcc" {
			delete(doc, "Actions") // its slot is PATCHed
		}
	}
	b, err := json.Marshal(f.p.present(doc))
	if err != nil {
		return out
	}
	return b
}

// system makes a ComputerSystem the vendor's.
func (f *Fronted) system(doc map[string]any) {
	doc["Manufacturer"], doc["Model"] = f.id.manufacturer, f.id.model
	if boot, _ := doc["Boot"].(map[string]any); boot != nil && f.p.uefiOnly {
		boot["BootSourceOverrideTarget@Redfish.AllowableValues"] = []any{"None", "Pxe", "Cd", "Hdd", "UefiPxe", "UefiCd", "UefiHttp"}
	}
	actions, _ := doc["Actions"].(map[string]any)
	reset, _ := actions["#ComputerSystem.Reset"].(map[string]any)
	if allowed, ok := reset["ResetType@Redfish.AllowableValues"].([]any); ok && f.p.hpeBootFlag {
		var keep []any
		for _, v := range allowed {
			if v != "GracefulShutdown" {
				keep = append(keep, v)
			}
		}
		reset["ResetType@Redfish.AllowableValues"] = append(keep, "PushPowerButton")
	}
}

func writeDoc(w http.ResponseWriter, doc map[string]any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(doc)
}

// recorder keeps the emulator's answer for rewriting.
type recorder struct {
	hdr  http.Header
	code int
	body bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.hdr }

func (r *recorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.code == 0 {
		r.code = http.StatusOK
	}
	return r.body.Write(b)
}
