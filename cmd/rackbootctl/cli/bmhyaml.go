package cli

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/engine/jsonfields"
)

// ErrManifest: a BareMetalHost manifest file cannot be used.
var ErrManifest = errors.New("bad BareMetalHost manifest")

// maxManifestDocs bounds the documents of one manifest file.
const maxManifestDocs = 1000

// manifestDoc is any Kubernetes document of a metal3 manifest file.
type manifestDoc struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
}

// secretDoc is a v1 Secret (data base64, stringData plain).
type secretDoc struct {
	Data       map[string]string `json:"data"`
	StringData map[string]string `json:"stringData"`
}

// Manifests is what a metal3 manifest file holds for rackboot: its
// BareMetalHosts, each with the credentials of the Secret it names when
// the file has that Secret, and the kinds it skipped.
type Manifests struct {
	Hosts   []client.BareMetalHostCreate
	Skipped []string // "Kind/name" of documents that are not BMHs or their Secrets
	// Unknown are the fields of the BareMetalHosts rackboot does not use
	// ("baremetalhost/name: spec.image"), reported rather than dropped.
	Unknown []string
	// network is the NMState YAML of each Secret with an nmstate key.
	network map[string]string
}

// ParseBMHManifests reads a multi-document YAML (or JSON) file of metal3
// BareMetalHosts and Secrets, as seed 000 writes them. Errors name the
// document and field, never a secret's value.
func ParseBMHManifests(data []byte) (Manifests, error) {
	var (
		out     Manifests
		secrets = map[string]client.BMCCredentials{}
		bad     = map[string]error{}
	)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for n := 1; ; n++ {
		if n > maxManifestDocs {
			return out, fmt.Errorf("%w: more than %d documents", ErrManifest, maxManifestDocs)
		}
		raw, err := nextDoc(dec)
		if err == io.EOF {
			break
		}
		if err != nil {
			return out, fmt.Errorf("%w: document %d: %v", ErrManifest, n, err)
		}
		if raw == nil {
			continue // an empty document
		}
		if err := out.add(n, raw, secrets, bad); err != nil {
			return out, err
		}
	}
	if len(out.Hosts) == 0 {
		return out, fmt.Errorf("%w: no BareMetalHost in the file", ErrManifest)
	}
	for i, h := range out.Hosts {
		if doc, ok := out.network[h.Spec.PreprovisioningNetworkDataName]; ok && h.Spec.PreprovisioningNetworkDataName != "" {
			out.Hosts[i].PreprovisioningNetworkData = &doc
		}
	}
	return out, attachCredentials(out.Hosts, secrets, bad)
}

// nextDoc decodes the next YAML document into its JSON form (nil for an
// empty one).
func nextDoc(dec *yaml.Decoder) ([]byte, error) {
	var v any
	if err := dec.Decode(&v); err != nil {
		if err == io.EOF {
			return nil, err
		}
		return nil, fmt.Errorf("not YAML: %v", err)
	}
	if v == nil {
		return nil, nil
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, fmt.Errorf("not a mapping")
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("cannot be read as JSON (keys must be strings): %v", err)
	}
	return b, nil
}

// add files document n.
func (m *Manifests) add(n int, raw []byte, secrets map[string]client.BMCCredentials, bad map[string]error) error {
	var d manifestDoc
	if err := json.Unmarshal(raw, &d); err != nil {
		return fmt.Errorf("%w: document %d: %v", ErrManifest, n, jsonWhy(err))
	}
	switch d.Kind {
	case "BareMetalHost":
		var h client.BareMetalHostCreate
		if err := json.Unmarshal(raw, &h.BareMetalHost); err != nil {
			return fmt.Errorf("%w: document %d (BareMetalHost %s): %v", ErrManifest, n, d.Metadata.Name, jsonWhy(err))
		}
		if h.Metadata.Name == "" {
			return fmt.Errorf("%w: document %d: BareMetalHost without metadata.name", ErrManifest, n)
		}
		h.Status = nil
		m.Hosts = append(m.Hosts, h)
		var v any
		_ = json.Unmarshal(raw, &v)
		for _, f := range jsonfields.Unknown(v, reflect.TypeOf(h.BareMetalHost)) {
			if f != "metadata.namespace" && !strings.HasPrefix(f, "status.") {
				m.Unknown = append(m.Unknown, "baremetalhost/"+h.Metadata.Name+": "+f)
			}
		}
	case "Secret":
		var s secretDoc
		if err := json.Unmarshal(raw, &s); err != nil {
			bad[d.Metadata.Name] = fmt.Errorf("document %d (Secret %s): %v", n, d.Metadata.Name, jsonWhy(err))
			return nil
		}
		if doc, ok := networkData(s); ok {
			if m.network == nil {
				m.network = map[string]string{}
			}
			m.network[d.Metadata.Name] = doc
			return nil
		}
		c, err := credentials(s)
		if err != nil {
			bad[d.Metadata.Name] = fmt.Errorf("document %d (Secret %s): %w", n, d.Metadata.Name, err)
			return nil
		}
		secrets[d.Metadata.Name] = c
	case "":
		return fmt.Errorf("%w: document %d has no kind", ErrManifest, n)
	default:
		m.Skipped = append(m.Skipped, d.Kind+"/"+d.Metadata.Name)
	}
	return nil
}

// networkData is the NMState YAML of a Secret with an nmstate key (the
// one a BMH's preprovisioningNetworkDataName names).
func networkData(s secretDoc) (string, bool) {
	if v, ok := s.StringData["nmstate"]; ok {
		return v, true
	}
	enc, ok := s.Data["nmstate"]
	if !ok {
		return "", false
	}
	v, err := base64.StdEncoding.DecodeString(enc)
	return string(v), err == nil
}

// credentials reads username and password from a Secret: stringData
// wins over data, as Kubernetes does.
func credentials(s secretDoc) (client.BMCCredentials, error) {
	var c client.BMCCredentials
	for _, k := range []struct {
		key string
		dst *string
	}{{"username", &c.Username}, {"password", &c.Password}} {
		if v, ok := s.StringData[k.key]; ok {
			*k.dst = v
			continue
		}
		enc, ok := s.Data[k.key]
		if !ok {
			return c, fmt.Errorf("no %s in data or stringData", k.key)
		}
		v, err := base64.StdEncoding.DecodeString(enc)
		if err != nil {
			return c, fmt.Errorf("data.%s is not base64", k.key)
		}
		*k.dst = string(v)
	}
	if c.Username == "" || c.Password == "" {
		return c, fmt.Errorf("empty username or password")
	}
	return c, nil
}

// attachCredentials gives each host the Secret its credentialsName names,
// when the file has it; a named Secret that is broken is an error.
func attachCredentials(hosts []client.BareMetalHostCreate, secrets map[string]client.BMCCredentials, bad map[string]error) error {
	for i := range hosts {
		name := hosts[i].Spec.BMC.CredentialsName
		if err := bad[name]; err != nil {
			return fmt.Errorf("%w: credentials of BareMetalHost %s: %w", ErrManifest, hosts[i].Metadata.Name, err)
		}
		if c, ok := secrets[name]; ok {
			hosts[i].Credentials = &c
		}
	}
	return nil
}

// jsonWhy explains a decoding error without echoing the input.
func jsonWhy(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %q must be %s, not %s", te.Field, te.Type, te.Value)
	}
	return "malformed"
}
