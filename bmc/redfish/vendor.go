package redfish

import (
	"context"
	"strings"

	"github.com/stmcginnis/gofish"

	"github.com/rackboot/rackboot/bmc"
)

// vendor is what the driver does differently for one family of BMCs, as
// Ironic's redfish, idrac-redfish and ilo5 interfaces and sushy's OEM
// extensions do. The zero value is plain DMTF Redfish.
type vendor struct {
	name string
	// insertExtra is added to every InsertMedia body (iLO: boot the media
	// at the next server reset, which its one-time Cd override alone does
	// not do for virtual media).
	insertExtra map[string]any
	// noSlotPatch: the slot's properties are read only (iDRAC); an inserted
	// image is waited for, never PATCHed in.
	noSlotPatch bool
	// slotGuesses are slot ids looked for under a VirtualMedia collection
	// that lists no CD slot (Supermicro X12 lists none, CD1 answers).
	slotGuesses []string
	// bootCD, if set, makes the next boot (once) the virtual CD the
	// vendor's way (iDRAC: its ServerBoot attributes through
	// ImportSystemConfiguration, as sushy-oem-idrac's
	// set_virtual_boot_device). It returns errNoOEM when the BMC does not
	// offer the method; the standard override is used then.
	bootCD func(d *Driver, ctx context.Context, api *gofish.APIClient, op string, sys *systemDoc) error
}

var (
	generic    = vendor{name: "redfish"}
	dell       = vendor{name: "idrac", noSlotPatch: true, bootCD: (*Driver).idracBootVirtualCD}
	hpe        = vendor{name: "ilo", insertExtra: map[string]any{"Oem": map[string]any{"Hpe": map[string]any{"BootOnNextServerReset": true}}}}
	supermicro = vendor{name: "supermicro", slotGuesses: []string{"CD1"}}
	lenovo     = vendor{name: "xcc"}
)

// vendorFor picks the strategy from the address scheme (idrac-*, ilo5-*)
// and else from the system's own Manufacturer.
func (d *Driver) vendorFor(sys *systemDoc) vendor {
	switch d.addr.Kind {
	case bmc.KindIDRAC:
		return dell
	case bmc.KindILO5:
		return hpe
	}
	m := strings.ToLower(sys.Manufacturer)
	switch {
	case strings.HasPrefix(m, "dell"):
		return dell
	case m == "hpe" || m == "hp" || strings.HasPrefix(m, "hewlett"):
		return hpe
	case strings.HasPrefix(m, "supermicro"):
		return supermicro
	case strings.HasPrefix(m, "lenovo"):
		return lenovo
	}
	return generic
}

// withExtra is body with the vendor's extra InsertMedia fields.
func (v vendor) withExtra(body map[string]any) map[string]any {
	out := make(map[string]any, len(body)+len(v.insertExtra))
	for k, val := range body {
		out[k] = val
	}
	for k, val := range v.insertExtra {
		out[k] = val
	}
	return out
}
