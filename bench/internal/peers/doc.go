// Package peers writes throw-away configurations for the servers the
// benchmarks compare (rackbootd, Kea, dnsmasq, tftpd-hpa, nginx) and starts
// each one in the foreground inside the server namespace.
package peers
