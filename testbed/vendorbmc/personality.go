package vendorbmc

import (
	"strings"
)

// personality is how one vendor's BMC differs from the DMTF schema.
type personality struct {
	// refuse returns a status and message to refuse a request with, or 0.
	refuse func(method, path string, body map[string]any) (int, string)
	// mediaDelay is how many reads of a slot pass before an InsertMedia or
	// a PATCH of the slot shows in it (0: at once).
	mediaDelay int
	// notInserted: InsertMedia without Inserted leaves Inserted false.
	notInserted bool
	// trailingSlash: every link the BMC gives ends in "/".
	trailingSlash bool
	// hpeBootFlag: the virtual media is booted only when it was inserted
	// with Oem.Hpe.BootOnNextServerReset (the standard override boots the
	// disk).
	hpeBootFlag bool
	// uefiOnly: no legacy boot; the targets Pxe and Cd boot the disk, only
	// UefiPxe, UefiCd and UefiHttp boot the network or the CD.
	uefiOnly bool
}

func personalityOf(vendor string) personality {
	none := func(string, string, map[string]any) (int, string) { return 0, "" }
	switch vendor {
	case "dell-idrac9", "dell-idrac9-fw4":
		return personality{refuse: idracRefuse, mediaDelay: 2}
	case "hpe-ilo5":
		return personality{refuse: iloRefuse, trailingSlash: true, hpeBootFlag: true}
	case "supermicro-x12":
		return personality{refuse: supermicroRefuse, notInserted: true, uefiOnly: true}
	case "lenovo-xcc":
		return personality{refuse: none, mediaDelay: 2}
	case "ami-megarac":
		return personality{refuse: amiRefuse}
	}
	return personality{refuse: none}
}

func isMedia(path string) bool { return strings.Contains(path, "/VirtualMedia/") }

// idracRefuse: a VirtualMedia slot cannot be PATCHed (its properties are
// read only on iDRAC; media goes in through InsertMedia).
func idracRefuse(method, path string, body map[string]any) (int, string) {
	if method == "PATCH" && isMedia(path) {
		for k := range body {
			return 400, "The property " + k + " is a read only property and cannot be assigned a value."
		}
	}
	return 0, ""
}

// iloRefuse: EjectMedia wants a JSON object body, not an empty one, and
// GracefulShutdown is not a ResetType of iLO 5 (PushPowerButton is).
func iloRefuse(method, path string, body map[string]any) (int, string) {
	if method == "POST" && strings.HasSuffix(path, "VirtualMedia.EjectMedia") && body == nil {
		return 400, "The request body is missing or malformed; an empty JSON object is required."
	}
	if method == "POST" && strings.HasSuffix(path, "ComputerSystem.Reset") && body["ResetType"] == "GracefulShutdown" {
		return 400, "The value GracefulShutdown for the parameter ResetType is not in the list of acceptable values."
	}
	return 0, ""
}

// supermicroRefuse: InsertMedia refuses Inserted/WriteProtected, and a
// boot override refuses BootSourceOverrideMode UEFI.
func supermicroRefuse(method, path string, body map[string]any) (int, string) {
	if method == "POST" && strings.HasSuffix(path, "VirtualMedia.InsertMedia") {
		for _, k := range []string{"Inserted", "WriteProtected"} {
			if _, ok := body[k]; ok {
				return 400, "The action InsertMedia was submitted with the invalid parameter " + k + "."
			}
		}
	}
	if boot, ok := body["Boot"].(map[string]any); ok && method == "PATCH" && boot["BootSourceOverrideMode"] == "UEFI" {
		return 400, "The value UEFI for the property BootSourceOverrideMode is not in the list of acceptable values."
	}
	return 0, ""
}

// amiRefuse: InsertMedia needs TransferProtocolType and TransferMethod.
func amiRefuse(method, path string, body map[string]any) (int, string) {
	if method == "POST" && strings.HasSuffix(path, "VirtualMedia.InsertMedia") {
		if _, ok := body["TransferProtocolType"]; !ok {
			return 400, "The action InsertMedia requires the parameter TransferProtocolType to be present in the request body."
		}
		if body["TransferMethod"] != "Stream" {
			return 400, "The action InsertMedia requires the parameter TransferMethod to be present in the request body."
		}
		if _, ok := body["Inserted"]; ok {
			return 400, "The action InsertMedia was submitted with the invalid parameter Inserted."
		}
	}
	return 0, ""
}

// present is the document as the vendor shows it (iLO: links with a
// trailing slash).
func (p personality) present(doc map[string]any) any {
	if !p.trailingSlash {
		return doc
	}
	return slashLinks(doc, "")
}

func slashLinks(v any, key string) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, sub := range t {
			out[k] = slashLinks(sub, k)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, sub := range t {
			out[i] = slashLinks(sub, key)
		}
		return out
	case string:
		if (key == "@odata.id" || key == "target") && strings.HasPrefix(t, "/redfish/v1/") && !strings.HasSuffix(t, "/") {
			return t + "/"
		}
	}
	return v
}
