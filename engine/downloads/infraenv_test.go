package downloads

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/boot/discovery"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/models"
)

// fixedISOs hands out url for every infra-env (none when url is "") and
// records the expiry it was asked for.
type fixedISOs struct {
	url string
	exp *time.Time
}

func (f fixedISOs) DiscoveryISOURL(_ context.Context, id string, exp time.Time) (string, bool, error) {
	*f.exp = exp
	if f.url == "" {
		return "", false, nil
	}
	return f.url + "/" + id + ".iso", true, nil
}

// fixedPXE hands out the same artifacts for every infra-env.
type fixedPXE struct{}

func (fixedPXE) BootArtifacts(_ context.Context, id string) (string, string, string, error) {
	return bootURL + "/pxe/" + id + "/vmlinuz", bootURL + "/pxe/" + id + "/initrd.img", bootURL + "/images/set/rootfs.img", nil
}

// The discovery Ignition carries the agent config: the REST API's URL, the
// infra-env and an agent token that the key ring verifies as scoped to
// that infra-env; an unknown infra-env is not found, and nothing is
// written.
func TestDiscoveryIgnitionAgentToken(t *testing.T) {
	b := newBed(t)
	id := b.infraEnv("rack")
	s := b.service(Options{})
	entries := b.st.Entries()
	ign, err := s.DiscoveryIgnition(id)
	if err != nil {
		t.Fatal(err)
	}
	var ac discovery.AgentConfig
	if err := json.Unmarshal([]byte(ignitionFile(t, ign, discovery.AgentConfigPath)), &ac); err != nil {
		t.Fatal(err)
	}
	if ac.ServiceURL != serviceURL || ac.InfraEnvID != id {
		t.Errorf("agent config %s %s", ac.ServiceURL, ac.InfraEnvID)
	}
	c, err := b.keys.Verify(ac.Token)
	if err != nil || c.InfraEnvID != id || c.Subject != "agent" || c.HostID != "" || !c.ExpiresAt.IsZero() {
		t.Errorf("agent token claims %+v %v", c, err)
	}
	if _, err := s.DiscoveryIgnition("nope"); !errors.Is(err, hosts.ErrNotFound) || err.Error() != "not found: infra-env nope" {
		t.Errorf("unknown infra-env: %v", err)
	}
	if n := b.st.Entries() - entries; n != 0 {
		t.Errorf("downloads wrote %d entries", n)
	}
}

// An iPXE script chains the boot server's per-MAC script (iPXE's MAC, or
// the one asked for, hyphenated); a bad type, a boot-order-control script
// without a MAC and a bad MAC are bad input naming the value; with
// boot-order-control the MAC of a host of the infra-env that wrote its
// disk exits to the disk, while one still installing chains.
func TestIPXEScript(t *testing.T) {
	b := newBed(t)
	id := b.infraEnv("rack")
	s := b.service(Options{})
	chainTo := func(mac string) string {
		return "#!ipxe\n# rackboot infra-env " + id + "\nchain --autofree " + bootURL + "/boot/" + mac + "/script.ipxe\n"
	}
	for _, c := range []struct{ typ, mac, want string }{
		{"", "", chainTo("${mac:hexhyp}")},
		{IPXEAlways, "", chainTo("${mac:hexhyp}")},
		{IPXEAlways, "52:54:00:AA:00:01", chainTo("52-54-00-aa-00-01")},
		{IPXEBootOrder, "52:54:00:AA:00:01", chainTo("52-54-00-aa-00-01")},
	} {
		if got, err := s.IPXEScript(id, c.typ, c.mac); err != nil || string(got) != c.want {
			t.Errorf("type %q mac %q: %q %v", c.typ, c.mac, got, err)
		}
	}
	for _, c := range []struct{ typ, mac, want string }{
		{"sometimes", "", `bad request: ipxe_script_type "sometimes" is not discovery-image-always or boot-order-control`},
		{IPXEBootOrder, "", "bad request: ipxe_script_type boot-order-control needs mac"},
		{IPXEAlways, "52:54:00:aa:00", `bad request: mac "52:54:00:aa:00" is not a MAC address`},
	} {
		if _, err := s.IPXEScript(id, c.typ, c.mac); !errors.Is(err, hosts.ErrInvalid) || err.Error() != c.want {
			t.Errorf("%q %q: %v", c.typ, c.mac, err)
		}
	}
	if _, err := s.IPXEScript("nope", "", ""); !errors.Is(err, hosts.ErrNotFound) {
		t.Errorf("unknown infra-env: %v", err)
	}

	b.apply(&engine.RegisterHost{Host: engine.Host{ID: "11111111-1111-1111-1111-111111111111", InfraEnvID: id,
		Status: models.HostStatusInstallingInProgress, Inventory: inventory("52:54:00:aa:00:01")}})
	chain := "chain --autofree " + bootURL + "/boot/52-54-00-aa-00-01/script.ipxe"
	if got, _ := s.IPXEScript(id, IPXEBootOrder, "52:54:00:aa:00:01"); !strings.Contains(string(got), chain) {
		t.Errorf("a host still installing: %q", got)
	}
	b.apply(&engine.SetHostStatus{ID: "11111111-1111-1111-1111-111111111111", Status: models.HostStatusInstalled})
	got, err := s.IPXEScript(id, IPXEBootOrder, "52-54-00-AA-00-01")
	if err != nil || !strings.HasPrefix(string(got), "#!ipxe\n# rackboot: host 52:54:00:aa:00:01 is installed, boot from disk\n") ||
		strings.Contains(string(got), "chain") || !strings.Contains(string(got), "exit") {
		t.Errorf("an installed host: %q %v", got, err)
	}
	if got, _ := s.IPXEScript(id, IPXEBootOrder, "52:54:00:aa:00:02"); !strings.Contains(string(got), "/boot/52-54-00-aa-00-02/script.ipxe") {
		t.Errorf("another MAC: %q", got)
	}
}

// The REST API's image URL is the ISO server's, asked to last the image
// URL lifetime; without a base ISO it is the iPXE script's URL on the
// REST API with an image token that opens this infra-env's downloads
// only, until the same expiry.
func TestImageURL(t *testing.T) {
	b := newBed(t)
	id, other := b.infraEnv("rack"), b.infraEnv("other")
	var asked time.Time
	s := b.service(Options{ISOs: fixedISOs{url: bootURL + "/iso", exp: &asked}, ImageURLTTL: time.Hour})
	u, exp, err := s.ImageURL(context.Background(), id)
	if err != nil || u != bootURL+"/iso/"+id+".iso" || !exp.Equal(b.now.Add(time.Hour)) || !asked.Equal(exp) {
		t.Errorf("with a base ISO: %s until %s (asked %s) %v", u, exp, asked, err)
	}

	s = b.service(Options{ISOs: fixedISOs{exp: &asked}})
	u, exp, err = s.ImageURL(context.Background(), id)
	if err != nil || !exp.Equal(b.now.Add(DefaultImageURLTTL)) {
		t.Fatalf("without a base ISO: %s until %s %v", u, exp, err)
	}
	pu, err := url.Parse(u)
	if err != nil || pu.Scheme+"://"+pu.Host != serviceURL || pu.Path != "/api/assisted-install/v2/infra-envs/"+id+"/downloads/files" ||
		pu.Query().Get("file_name") != FileIPXEScript {
		t.Fatalf("image URL %s", u)
	}
	tok := pu.Query().Get(auth.QueryImageToken)
	if err := b.keys.VerifyPathToken(tok, id); err != nil {
		t.Errorf("image token of its infra-env: %v", err)
	}
	if err := b.keys.VerifyPathToken(tok, other); err == nil {
		t.Error("the image token opens another infra-env")
	}
	if _, err := b.keys.Verify(tok); err == nil {
		t.Error("the image token is an agent token")
	}
	if _, _, err := s.ImageURL(context.Background(), "nope"); !errors.Is(err, hosts.ErrNotFound) {
		t.Errorf("unknown infra-env: %v", err)
	}
}

// The Kubernetes-compatible API's image: the iPXE script's URL with an
// agent token (api_key) of the infra-env, the PXE kernel and initrd and
// the ISO carrying the image version, the rootfs as the PXE server names
// it; the ISO's URL does not expire. Without PXE or ISO servers, only
// the iPXE script.
func TestImage(t *testing.T) {
	b := newBed(t)
	id := b.infraEnv("rack")
	asked := time.Now()
	s := b.service(Options{ISOs: fixedISOs{url: bootURL + "/iso", exp: &asked}, PXE: fixedPXE{}})
	img, err := s.Image(context.Background(), id, "d1")
	if err != nil {
		t.Fatal(err)
	}
	if img.Kernel != bootURL+"/pxe/"+id+"/vmlinuz?version=d1" || img.Initrd != bootURL+"/pxe/"+id+"/initrd.img?version=d1" ||
		img.Rootfs != bootURL+"/images/set/rootfs.img" || img.ISO != bootURL+"/iso/"+id+".iso?version=d1" || !asked.IsZero() {
		t.Errorf("image %+v (ISO until %s)", img, asked)
	}
	pu, err := url.Parse(img.IPXEScript)
	if err != nil || pu.Scheme+"://"+pu.Host+pu.Path != serviceURL+"/api/assisted-install/v2/infra-envs/"+id+"/downloads/files" ||
		pu.Query().Get("file_name") != FileIPXEScript {
		t.Fatalf("iPXE script URL %s", img.IPXEScript)
	}
	c, err := b.keys.Verify(pu.Query().Get(auth.QueryAPIKey))
	if err != nil || c.InfraEnvID != id || c.Subject != "agent" {
		t.Errorf("iPXE script token %+v %v", c, err)
	}

	img, err = b.service(Options{}).Image(context.Background(), id, "d1")
	if err != nil || img.IPXEScript == "" || img.Kernel != "" || img.Initrd != "" || img.Rootfs != "" || img.ISO != "" {
		t.Errorf("without PXE or ISO: %+v %v", img, err)
	}
	if _, err := s.Image(context.Background(), "nope", "d1"); !errors.Is(err, hosts.ErrNotFound) {
		t.Errorf("unknown infra-env: %v", err)
	}
}
