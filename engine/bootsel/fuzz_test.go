package bootsel

import (
	"bytes"
	"encoding/json"
	"net"
	"strings"
	"testing"
)

// FuzzInventoryMACs feeds agent inventories (network input, stored as the
// agent sent it) to the MAC index: it must never panic, and every MAC it
// returns must be one the inventory's interfaces list.
func FuzzInventoryMACs(f *testing.F) {
	for _, s := range []string{
		`{"interfaces":[{"mac_address":"52:54:00:aa:00:01"},{"mac_address":"52-54-00-AA-00-02"}]}`,
		`{"interfaces":[{"mac_address":"not a mac"},{"mac_address":""},{}]}`,
		`{"interfaces":[{"mac_address":"00:00:00:00:fe:80:00:00:00:00:00:00:02:00:5e:10:00:00:00:01"}]}`,
		`{"interfaces":null}`, `[]`, `null`, `{"interfaces":[1,2]}`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		macs := inventoryMACs(raw)
		if len(macs) == 0 {
			return
		}
		var inv inventory
		if err := json.Unmarshal(raw, &inv); err != nil {
			t.Fatalf("MACs from an inventory that does not decode: %v", err)
		}
		for _, k := range macs {
			found := false
			for _, nic := range inv.Interfaces {
				if hw, err := net.ParseMAC(strings.TrimSpace(nic.MACAddress)); err == nil && bytes.Equal(hw, k[:]) {
					found = true
				}
			}
			if !found {
				t.Fatalf("MAC %x is not among the inventory's interfaces", k)
			}
		}
	})
}
