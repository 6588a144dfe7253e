package nmstate

import (
	"bytes"
	"crypto/sha1"
	"fmt"
)

// section is one [name] group of a keyfile, keys in insertion order.
type section struct {
	name string
	kv   [][2]string
}

func (s *section) set(k, v string) { s.kv = append(s.kv, [2]string{k, v}) }

// keyfile is a NetworkManager .nmconnection document.
type keyfile []*section

func (k keyfile) bytes() []byte {
	var b bytes.Buffer
	for i, s := range k {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "[%s]\n", s.name)
		for _, kv := range s.kv {
			fmt.Fprintf(&b, "%s=%s\n", kv[0], kv[1])
		}
	}
	return b.Bytes()
}

// uuidNamespace is RFC 4122's URL namespace; names are
// "urn:rackboot:nmconnection:<interface>".
var uuidNamespace = [16]byte{0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}

// connectionUUID is the UUIDv5 (SHA-1, RFC 4122 §4.3) of the interface name,
// so the same input always gives the same profile UUID.
func connectionUUID(name string) string {
	h := sha1.New()
	h.Write(uuidNamespace[:])
	h.Write([]byte("urn:rackboot:nmconnection:" + name))
	u := h.Sum(nil)[:16]
	u[6] = u[6]&0x0f | 0x50
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}
