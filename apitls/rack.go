package apitls

import (
	"crypto/tls"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// RackCAFile, under data_dir, holds the rack CA (PEM) while rackbootd also
// serves its rack certificate (a node certificate the rack CA signed,
// chosen by TLS SNI): `rackbootctl kubeconfig` then names that CA and the
// rack certificate's server name, so the kubeconfig works against every
// appliance of the rack.
const RackCAFile = "api-ca.crt"

// RackCert returns the rack certificate to serve beside the self-signed
// one, or false when cert does not name serverName (a node certificate
// issued before node certificates named it). It writes the CA to
// dir/RackCAFile when it returns one, and removes that file otherwise.
func RackCert(dir string, cert tls.Certificate, caDER []byte, serverName string) (tls.Certificate, bool, error) {
	path := filepath.Join(dir, RackCAFile)
	if cert.Leaf == nil || cert.Leaf.VerifyHostname(serverName) != nil || len(caDER) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return tls.Certificate{}, false, fmt.Errorf("apitls: %w", err)
		}
		return tls.Certificate{}, false, nil
	}
	if err := writeFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o644); err != nil {
		return tls.Certificate{}, false, err
	}
	return cert, true, nil
}
