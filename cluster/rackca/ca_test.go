package rackca

import (
	"bytes"
	"crypto/x509"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestIssueAndVerify(t *testing.T) {
	now := time.Now()
	ca, err := New(now)
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := ca.Issue("rb1", now)
	if err != nil {
		t.Fatal(err)
	}
	id, err := NewIdentity(ca.CertPEM(), certPEM, keyPEM, now)
	if err != nil {
		t.Fatal(err)
	}
	if id.NodeID != "rb1" {
		t.Errorf("node id %q", id.NodeID)
	}
	leaf, _ := x509.ParseCertificate(id.Cert.Certificate[0])
	if leaf.Subject.CommonName != "rb1" || len(leaf.URIs) != 1 || leaf.URIs[0].String() != "rackboot://node/rb1" {
		t.Errorf("certificate names %q %v", leaf.Subject.CommonName, leaf.URIs)
	}

	other, _ := New(now)
	if _, err := NewIdentity(other.CertPEM(), certPEM, keyPEM, now); !errors.Is(err, ErrIdentity) {
		t.Errorf("certificate checked against another CA: %v", err)
	}
	_, otherKey, _ := ca.Issue("rb2", now)
	if _, err := NewIdentity(ca.CertPEM(), certPEM, otherKey, now); !errors.Is(err, ErrIdentity) {
		t.Errorf("certificate with another node's key: %v", err)
	}
	if _, err := id.Verify([][]byte{leaf.Raw}, now.Add(11*365*24*time.Hour)); !errors.Is(err, ErrIdentity) {
		t.Errorf("expired certificate: %v", err)
	}
	// The CA certificate itself names no node.
	if _, err := id.Verify([][]byte{ca.Cert.Raw}, now); !errors.Is(err, ErrIdentity) {
		t.Errorf("CA certificate as a node: %v", err)
	}
}

func TestCheckNodeID(t *testing.T) {
	for _, id := range []string{"rb1", "rack-2.node_3", "A"} {
		if err := CheckNodeID(id); err != nil {
			t.Errorf("%q: %v", id, err)
		}
	}
	for _, id := range []string{"", "a b", "a/b", "é", string(make([]byte, 65))} {
		if err := CheckNodeID(id); !errors.Is(err, ErrNodeID) {
			t.Errorf("%q accepted", id)
		}
	}
}

func TestInitLoadWriteNode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rack")
	now := time.Now()
	ca, err := Init(dir, now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Init(dir, now); !errors.Is(err, ErrExists) {
		t.Errorf("second Init: %v", err)
	}
	fi, err := os.Stat(filepath.Join(dir, CAKeyFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("ca.key: %v %v", fi.Mode(), err)
	}
	loaded, err := Load(dir)
	if err != nil || !loaded.Cert.Equal(ca.Cert) {
		t.Fatalf("Load: %v", err)
	}
	out, err := loaded.WriteNode(dir, "rb3", now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loaded.WriteNode(dir, "rb3", now); !errors.Is(err, ErrExists) {
		t.Errorf("second WriteNode: %v", err)
	}
	id, err := LoadIdentity(filepath.Join(out, CACertFile), filepath.Join(out, NodeCertFile), filepath.Join(out, NodeKeyFile))
	if err != nil || id.NodeID != "rb3" {
		t.Fatalf("LoadIdentity: %v", err)
	}
	// Every node's directory carries the one rack secrets key, private.
	rackKey, err := os.ReadFile(filepath.Join(dir, SecretsKeyFile))
	if err != nil || len(rackKey) != 32 {
		t.Fatalf("rack secrets.key: %d bytes, %v", len(rackKey), err)
	}
	nodeKey, err := os.ReadFile(filepath.Join(out, SecretsKeyFile))
	if err != nil || !bytes.Equal(nodeKey, rackKey) {
		t.Fatalf("node secrets.key differs from the rack's (%v)", err)
	}
	if fi, err := os.Stat(filepath.Join(out, SecretsKeyFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("node secrets.key: %v %v", fi, err)
	}
	if _, err := loaded.WriteNode(dir, "../x", now); !errors.Is(err, ErrNodeID) {
		t.Errorf("node id ../x: %v", err)
	}
}
