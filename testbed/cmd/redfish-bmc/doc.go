// Command redfish-bmc is the testbed's BMC: a Redfish service (package
// testbed/redfish) in front of QEMU VMs that it starts and stops itself,
// over HTTPS with a self-signed certificate made at start.
//
//	ip netns exec <ns> redfish-bmc -listen 127.0.0.1:8443 -user admin \
//	    -password-file pw -dir /tmp/bmc \
//	    -vm id=vm1,mac=52:54:00:00:00:01,tap=tap0,firmware=uefi[,disk=/tmp/vm1.qcow2]
//
// The password comes from -password-file or the RACKBOOT_BMC_PASSWORD
// environment variable, never from the command line. QEMU runs in the
// network namespace the command runs in. Each VM keeps its console, QMP
// socket and UEFI variables in <dir>/<id>; downloaded virtual media go to
// <dir>/media. Once listening it prints "listening on https://<addr>" on
// standard output. SIGINT or SIGTERM powers the VMs off and exits.
package main
