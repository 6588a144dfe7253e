package redfish

import (
	"net/http"
	"strings"
)

type doc = map[string]any

func ref(path string) doc { return doc{"@odata.id": path} }

func (s *Service) serviceRoot() doc {
	return doc{
		"@odata.type":    "#ServiceRoot.v1_5_0.ServiceRoot",
		"@odata.id":      "/redfish/v1/",
		"Id":             "RootService",
		"Name":           "rackboot testbed BMC",
		"RedfishVersion": "1.11.0",
		"UUID":           "9a1d9a3c-6d0a-4d53-8e8c-72616b626f6f",
		"Systems":        ref("/redfish/v1/Systems"),
		"Managers":       ref("/redfish/v1/Managers"),
		"SessionService": ref("/redfish/v1/SessionService"),
		"Links":          doc{"Sessions": ref(sessionsPath)},
	}
}

func (s *Service) collection(path, typ, name string) doc {
	members := []doc{}
	for _, id := range s.order {
		members = append(members, ref(path+"/"+id))
	}
	return doc{
		"@odata.type": "#" + typ + "." + typ, "@odata.id": path, "Name": name,
		"Members": members, "Members@odata.count": len(members),
	}
}

func (s *Service) systemDoc(r *http.Request) (any, error) {
	sys, err := s.system(r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	sys.mu.Lock()
	defer sys.mu.Unlock()
	path := "/redfish/v1/Systems/" + sys.ID
	power := "Off"
	if sys.Machine.Running(r.Context()) {
		power = "On"
	}
	return doc{
		"@odata.type": "#ComputerSystem.v1_13_0.ComputerSystem", "@odata.id": path,
		"Id": sys.ID, "Name": sys.Name, "UUID": sys.UUID, "SystemType": "Virtual",
		"Manufacturer": "QEMU", "Model": "rackboot testbed VM",
		"PowerState": power,
		"Status":     doc{"State": "Enabled", "Health": "OK"},
		"Boot": doc{
			"BootSourceOverrideTarget":                          sys.boot.Target,
			"BootSourceOverrideTarget@Redfish.AllowableValues":  targets,
			"BootSourceOverrideEnabled":                         sys.boot.Enabled,
			"BootSourceOverrideEnabled@Redfish.AllowableValues": enabledValues,
			"BootSourceOverrideMode":                            sys.mode(),
			"BootSourceOverrideMode@Redfish.AllowableValues":    []string{sys.mode()},
		},
		"ProcessorSummary":   doc{"Count": 1, "Model": "QEMU TCG CPU"},
		"MemorySummary":      doc{"TotalSystemMemoryGiB": 0.5},
		"EthernetInterfaces": ref(path + "/EthernetInterfaces"),
		"VirtualMedia":       ref(path + "/VirtualMedia"),
		"Links":              doc{"ManagedBy": []doc{ref("/redfish/v1/Managers/" + sys.ID)}},
		"Actions": doc{"#ComputerSystem.Reset": doc{
			"target":                            path + "/Actions/ComputerSystem.Reset",
			"ResetType@Redfish.AllowableValues": resetTypes,
		}},
	}, nil
}

func (s *Service) nicCollection(r *http.Request) (any, error) {
	sys, err := s.system(r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	path := "/redfish/v1/Systems/" + sys.ID + "/EthernetInterfaces"
	return doc{
		"@odata.type": "#EthernetInterfaceCollection.EthernetInterfaceCollection", "@odata.id": path,
		"Name": "Ethernet Interface Collection", "Members": []doc{ref(path + "/nic0")}, "Members@odata.count": 1,
	}, nil
}

func (s *Service) nicDoc(r *http.Request) (any, error) {
	sys, err := s.system(r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	if r.PathValue("nic") != "nic0" {
		return nil, ErrNotFound
	}
	return doc{
		"@odata.type": "#EthernetInterface.v1_6_0.EthernetInterface",
		"@odata.id":   "/redfish/v1/Systems/" + sys.ID + "/EthernetInterfaces/nic0",
		"Id":          "nic0", "Name": "virtio-net NIC",
		"MACAddress": sys.MAC, "PermanentMACAddress": sys.MAC,
		"LinkStatus": "LinkUp", "SpeedMbps": 1000,
		"Status": doc{"State": "Enabled", "Health": "OK"},
	}, nil
}

func (s *Service) managerDoc(r *http.Request) (any, error) {
	sys, err := s.system(r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	path := "/redfish/v1/Managers/" + sys.ID
	return doc{
		"@odata.type": "#Manager.v1_10_0.Manager", "@odata.id": path,
		"Id": sys.ID, "Name": "BMC of " + sys.Name, "ManagerType": "BMC",
		"Status":       doc{"State": "Enabled", "Health": "OK"},
		"VirtualMedia": ref(path + "/VirtualMedia"),
		"Links":        doc{"ManagerForServers": []doc{ref("/redfish/v1/Systems/" + sys.ID)}},
	}, nil
}

// mediaBase is the VirtualMedia collection's path as the request named it
// (under the Manager or under the System).
func mediaBase(r *http.Request, id string) string {
	if strings.HasPrefix(r.URL.Path, "/redfish/v1/Systems/") {
		return "/redfish/v1/Systems/" + id + "/VirtualMedia"
	}
	return "/redfish/v1/Managers/" + id + "/VirtualMedia"
}

func (s *Service) mediaCollection(r *http.Request) (any, error) {
	sys, err := s.system(r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	path := mediaBase(r, sys.ID)
	return doc{
		"@odata.type": "#VirtualMediaCollection.VirtualMediaCollection", "@odata.id": path,
		"Name": "Virtual Media Collection", "Members": []doc{ref(path + "/Cd")}, "Members@odata.count": 1,
	}, nil
}

func (s *Service) mediaDoc(r *http.Request) (any, error) {
	sys, err := s.system(r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	if r.PathValue("slot") != "Cd" {
		return nil, ErrNotFound
	}
	sys.mu.Lock()
	m := sys.media
	sys.mu.Unlock()
	path := mediaBase(r, sys.ID) + "/Cd"
	var image any
	name := ""
	if m.Inserted {
		image = m.Image
		name = m.Image[strings.LastIndex(m.Image, "/")+1:]
	}
	connected := "NotConnected"
	if m.Inserted {
		connected = "URI"
	}
	return doc{
		"@odata.type": "#VirtualMedia.v1_3_0.VirtualMedia", "@odata.id": path,
		"Id": "Cd", "Name": "Virtual CD", "MediaTypes": []string{"CD", "DVD"},
		"Image": image, "ImageName": name, "Inserted": m.Inserted, "WriteProtected": true,
		"ConnectedVia": connected, "TransferProtocolType": "HTTP", "TransferMethod": "Upload",
		"Actions": doc{
			"#VirtualMedia.InsertMedia": doc{
				"target": path + "/Actions/VirtualMedia.InsertMedia",
				"TransferProtocolType@Redfish.AllowableValues": []string{"HTTP"},
			},
			"#VirtualMedia.EjectMedia": doc{"target": path + "/Actions/VirtualMedia.EjectMedia"},
		},
	}, nil
}
