package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/engine"
)

// create bmh -f with a BareMetalHost rackbootd refuses (a password inside
// its BMC address, a bad boot MAC) fails and leaves nothing behind: no
// credentials Secret, no log entry, the password nowhere in the output.
func TestCreateRefusedBareMetalHostStoresNothing(t *testing.T) {
	r := newRig(t)
	const secret = `apiVersion: v1
kind: Secret
metadata: {name: bad-bmc-secret}
data: {username: cm9vdA==, password: UmVmdXNlZC1wYXNzd29yZC03Nw==}
`
	for name, spec := range map[string]string{
		"password in the address": `bmc: {address: "redfish://root:Refused-password-77@10.0.0.5/redfish/v1/Systems/1", credentialsName: bad-bmc-secret}`,
		"bad MAC": `bmc: {address: "redfish://10.0.0.5/redfish/v1/Systems/1", credentialsName: bad-bmc-secret}
  bootMACAddress: "94:40"`,
	} {
		path := filepath.Join(t.TempDir(), "bmh.yaml")
		doc := secret + "---\napiVersion: metal3.io/v1alpha1\nkind: BareMetalHost\nmetadata: {name: bad}\nspec:\n  " + spec + "\n"
		if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		before := r.srv.Store.Entries()
		res := r.run("create", "bmh", "-f", path)
		if res.code == 0 || !strings.Contains(res.stderr, "400") {
			t.Errorf("%s: %+v", name, res)
		}
		if strings.Contains(res.stdout+res.stderr, "Refused-password-77") {
			t.Errorf("%s: the password was printed: %s", name, res.stderr)
		}
		if after := r.srv.Store.Entries(); after != before {
			t.Errorf("%s: %d log entries for a refused BareMetalHost", name, after-before)
		}
		r.srv.Store.Read(func(m *engine.Model) {
			if _, ok := m.Secret("bad-bmc-secret"); ok {
				t.Errorf("%s: the refused BareMetalHost left its credentials Secret", name)
			}
		})
	}
}
