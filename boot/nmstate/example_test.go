package nmstate_test

import (
	"fmt"

	"github.com/rackboot/rackboot/boot/nmstate"
)

func ExampleConvert() {
	doc := []byte(`
interfaces:
- name: eth0
  type: ethernet
  ipv4:
    enabled: true
    address:
    - ip: 192.0.2.10
      prefix-length: 24
dns-resolver:
  config:
    server: [192.0.2.53]
routes:
  config:
  - destination: 0.0.0.0/0
    next-hop-address: 192.0.2.1
    next-hop-interface: eth0
`)
	files, err := nmstate.Convert(doc, []nmstate.NIC{{Name: "eth0", MAC: "52:54:00:12:34:56"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range files {
		fmt.Printf("== %s\n%s", f.Name, f.Data)
	}
	// Output:
	// == eth0.nmconnection
	// [connection]
	// id=eth0
	// uuid=784ee0b3-39ee-5e0a-ae8c-69996a82d59a
	// type=ethernet
	// interface-name=eth0
	// autoconnect=true
	// autoconnect-priority=1
	//
	// [ethernet]
	// mac-address=52:54:00:12:34:56
	//
	// [ipv4]
	// method=manual
	// address1=192.0.2.10/24
	// gateway=192.0.2.1
	// dns=192.0.2.53;
	// dns-priority=40
	//
	// [ipv6]
	// method=disabled
	// == mac_interface.ini
	// 52:54:00:12:34:56=eth0
}
