package enginetest

import (
	"bytes"

	"github.com/rackboot/rackboot/engine"
)

// Dump returns the deterministic snapshot encoding of m (equal models give
// equal bytes). It panics if encoding fails, which is a bug.
func Dump(m *engine.Model) []byte {
	var b bytes.Buffer
	if _, err := m.WriteTo(&b); err != nil {
		panic(err)
	}
	return b.Bytes()
}
