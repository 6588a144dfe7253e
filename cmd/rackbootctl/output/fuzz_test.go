package output_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/cmd/rackbootctl/output"
)

// FuzzHostOutput: whatever host JSON a server sends (inventory and
// validations_info are JSON inside strings), the table and the describe
// page render without panicking and without control characters other
// than the newlines that end lines.
func FuzzHostOutput(f *testing.F) {
	for _, s := range []string{
		`[{"id":"a","status":"known","inventory":"{\"hostname\":\"h\",\"disks\":[{\"name\":\"vda\"}],\"interfaces\":[null]}"}]`,
		`[{"id":"b","validations_info":"{\"hardware\":[{\"id\":\"x\",\"status\":\"failure\",\"message\":\"m\\u001b\"}]}"}]`,
		`[{"id":"c\u0007","progress":{"current_stage":"Installing","installation_percentage":50}}]`,
		`[null]`, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var hs []*client.Host
		if json.Unmarshal(data, &hs) != nil {
			return
		}
		kept := hs[:0]
		for _, h := range hs {
			if h != nil {
				kept = append(kept, h)
			}
		}
		var b bytes.Buffer
		if err := output.Write(&b, output.FormatWide, nil, output.Hosts(kept, true)); err != nil {
			t.Fatal(err)
		}
		for _, h := range kept {
			if err := output.DescribeHost(&b, h); err != nil {
				t.Fatal(err)
			}
		}
		if i := strings.IndexFunc(b.String(), func(r rune) bool { return r < 0x20 && r != '\n' || r == 0x7f }); i >= 0 {
			t.Errorf("control character at %d: %q", i, b.String())
		}
	})
}
