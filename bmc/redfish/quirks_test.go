package redfish_test

import "strings"

// quirksFor returns the behaviour of a vendor's BMC that differs from the
// DMTF schema, as REFERENCE.md ("BMC (Redfish) facts") records it from
// sushy, bmclib and issue trackers. It returns a status and message to
// refuse a request with, or 0.
func quirksFor(vendor string) func(method, path string, body map[string]any) (int, string) {
	switch vendor {
	case "supermicro-x12":
		return supermicroQuirks
	case "hpe-ilo5":
		return iloQuirks
	case "ami-megarac":
		return amiQuirks
	}
	return func(string, string, map[string]any) (int, string) { return 0, "" }
}

// supermicroQuirks: InsertMedia refuses Inserted/WriteProtected, and a
// boot override refuses BootSourceOverrideMode UEFI.
func supermicroQuirks(method, path string, body map[string]any) (int, string) {
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

// iloQuirks: EjectMedia wants a JSON object body, not an empty one.
func iloQuirks(method, path string, body map[string]any) (int, string) {
	if method == "POST" && strings.HasSuffix(path, "VirtualMedia.EjectMedia") && body == nil {
		return 400, "The request body is missing or malformed; an empty JSON object is required."
	}
	return 0, ""
}

// amiQuirks: InsertMedia needs TransferProtocolType and TransferMethod.
func amiQuirks(method, path string, body map[string]any) (int, string) {
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
