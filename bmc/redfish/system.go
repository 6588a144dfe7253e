package redfish

import (
	"slices"
	"strings"

	"github.com/stmcginnis/gofish"

	"github.com/rackboot/rackboot/bmc"
)

// systemDoc is the part of a ComputerSystem the driver acts on.
type systemDoc struct {
	ID           string `json:"@odata.id"`
	PowerState   string `json:"PowerState"`
	Manufacturer string `json:"Manufacturer"`
	Boot         struct {
		Mode    string   `json:"BootSourceOverrideMode"`
		Targets []string `json:"BootSourceOverrideTarget@Redfish.AllowableValues"`
	} `json:"Boot"`
	Actions struct {
		Reset struct {
			Target  string   `json:"target"`
			Allowed []string `json:"ResetType@Redfish.AllowableValues"`
		} `json:"#ComputerSystem.Reset"`
	} `json:"Actions"`
	VirtualMedia odataRef `json:"VirtualMedia"`
	Links        struct {
		ManagedBy []odataRef `json:"ManagedBy"`
	} `json:"Links"`
}

func (d *Driver) getSystem(api *gofish.APIClient, op, path string) (*systemDoc, error) {
	var sys systemDoc
	if err := d.getJSON(api, op, path, &sys); err != nil {
		return nil, err
	}
	return &sys, nil
}

// allows reports whether v is among the allowable values (an absent list
// allows everything, as most BMCs do not publish one).
func allows(allowed []string, v string) bool {
	return len(allowed) == 0 || slices.Contains(allowed, v)
}

// validLink accepts only paths inside the Redfish tree of this BMC, so a
// link in a BMC's answer cannot point the driver elsewhere.
func validLink(s string) bool {
	return strings.HasPrefix(s, "/redfish/v1/") && !strings.Contains(s, "..") &&
		!strings.ContainsAny(s, "?#\\ \t\r\n")
}

// powerState maps Redfish's PowerState to bmc's.
func powerState(s string) bmc.PowerState {
	switch bmc.PowerState(s) {
	case bmc.PowerOn, bmc.PowerOff, bmc.PowerPoweringOn, bmc.PowerPoweringOff:
		return bmc.PowerState(s)
	}
	return bmc.PowerUnknown
}
