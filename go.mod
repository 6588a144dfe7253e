module github.com/rackboot/rackboot

go 1.26.8

require (
	github.com/cavaliergopher/cpio v1.0.1 // indirect
	github.com/coreos/go-systemd/v22 v22.7.0 // indirect
	github.com/coreos/ignition/v2 v2.24.0 // indirect
	github.com/insomniacslk/dhcp v0.0.0-20260901064844-234b97448fae // indirect
	github.com/pelletier/go-toml/v2 v2.4.3 // indirect
	github.com/pin/tftp/v3 v3.2.0 // indirect
	golang.org/x/net v0.55.0 // indirect
	golang.org/x/sys v0.45.0 // indirect
)
