package rackca

import (
	"testing"
	"time"
)

// Verify takes a peer's certificate chain off the network: it never
// panics, and accepts only a chain of this CA naming a node.
func FuzzVerify(f *testing.F) {
	now := time.Now()
	ca, err := New(now)
	if err != nil {
		f.Fatal(err)
	}
	certPEM, keyPEM, err := ca.Issue("rb1", now)
	if err != nil {
		f.Fatal(err)
	}
	id, err := NewIdentity(ca.CertPEM(), certPEM, keyPEM, now)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(id.Cert.Certificate[0])
	f.Add(ca.Cert.Raw)
	f.Add([]byte{0x30, 0x03, 0x02, 0x01, 0x01})
	f.Fuzz(func(t *testing.T, der []byte) {
		node, err := id.Verify([][]byte{der}, now)
		if err == nil && node != "rb1" {
			t.Fatalf("verified a certificate naming %q", node)
		}
	})
}
