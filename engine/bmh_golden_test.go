package engine_test

import "github.com/rackboot/rackboot/engine"

// bmhLog registers a BareMetalHost, pairs h1 with it and detaches it:
// commands 33–37.
func bmhLog() []engine.Command {
	online, addr := true, "redfish+https://10.0.0.9/redfish/v1/Systems/1"
	role, approved, disk := "master", true, "/dev/disk/by-path/pci-0000:00:05.0"
	detached := "rackboot"
	no := false
	return []engine.Command{
		&engine.PutSecret{Secret: engine.Secret{Name: "node-bmc", Type: engine.BMCSecretType,
			Data: map[string][]byte{"username": []byte("rbseal1:sealed-user"), "password": []byte("rbseal1:sealed-pass")}}},
		&engine.CreateBareMetalHost{Host: engine.BareMetalHost{Name: "node-1",
			Labels:      map[string]string{engine.LabelInfraEnv: "rack1"},
			Annotations: map[string]string{engine.AnnotationRole: "master", engine.AnnotationHostname: "node-1"},
			BMC: engine.BMC{Address: "redfish-virtualmedia://10.0.0.9/redfish/v1/Systems/1", CredentialsName: "node-bmc",
				DisableCertificateVerification: true},
			BootMACAddress: "52:54:00:00:00:01", Online: true, AutomatedCleaningMode: engine.CleaningDisabled,
			RootDeviceHints: &engine.RootDeviceHints{MinSizeGigabytes: 20, Rotational: &no}}},
		&engine.CreateBareMetalHost{Host: engine.BareMetalHost{Name: "gone", BMC: engine.BMC{Address: addr, CredentialsName: "node-bmc"}}},
		&engine.DeleteBareMetalHost{Name: "gone"},
		&engine.SetBareMetalHostStatus{Name: "node-1", Status: engine.BMHStatus{ProvisioningState: engine.BMHProvisioning,
			PowerState: "On", OperationalStatus: engine.BMHStatusOK, LastOperation: "power on"}},
		&engine.PairBareMetalHost{Name: "node-1", HostID: h1ID, Host: engine.HostFromBMH{Role: &role, Approved: &approved,
			InstallationDiskID: &disk, Labels: map[string]string{"rack": "r1"}}},
		&engine.UpdateBareMetalHost{Name: "node-1", Patch: engine.BMHPatch{Online: &online,
			Annotations: map[string]*string{engine.AnnotationDetached: &detached}}},
	}
}
