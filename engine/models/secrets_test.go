package models

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// The documents that carry a pull secret or password print without it,
// whichever verb prints them, and still encode it for the wire.
func TestSecretsDoNotPrint(t *testing.T) {
	const secret = `{"auths":{"r.example.com":{"auth":"c2VjcmV0"}}}`
	ps := secret
	for _, v := range []any{
		ClusterCreateParams{Name: new("a"), PullSecret: &ps},
		V2ClusterUpdateParams{PullSecret: &ps},
		InfraEnvCreateParams{Name: new("a"), PullSecret: &ps},
		InfraEnvUpdateParams{PullSecret: &ps},
		Credentials{Username: "kubeadmin", Password: secret},
	} {
		for _, verb := range []string{"%v", "%+v", "%s", "%#v"} {
			if s := fmt.Sprintf(verb, v); strings.Contains(s, "auths") {
				t.Errorf("%T with %s prints its secret: %s", v, verb, s)
			}
		}
		b, err := json.Marshal(v)
		if err != nil || !strings.Contains(string(b), "auths") {
			t.Errorf("%T encodes to %s, %v: want the secret on the wire", v, b, err)
		}
	}
}
