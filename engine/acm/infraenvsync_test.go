package acm_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/acm"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/isoserve"
)

// noIgnition: the ISO server's configs are not asked for (no ISO is
// served here, only its URLs made).
type noIgnition struct{}

func (noIgnition) InfraEnvIgnition(context.Context, string) ([]byte, error) {
	return nil, errors.New("not served in this test")
}

// isoEnv runs the controller with the ISO server's URLs over a store with
// namespace ns, its pull secret Secret and an image set with a base ISO.
func isoEnv(t *testing.T) *enginetest.Store {
	t.Helper()
	s, _ := isoEnvSealer(t)
	return s
}

// isoEnvSealer is isoEnv and the sealer of its secrets.
func isoEnvSealer(t *testing.T) (*enginetest.Store, *engine.Sealer) {
	t.Helper()
	s := enginetest.NewStore()
	sealer, _ := engine.NewSealer(make([]byte, 32))
	keys := auth.NewKeyRing()
	if _, err := keys.Generate(); err != nil {
		t.Fatal(err)
	}
	isos, err := isoserve.New(isoserve.Options{Store: s, Keys: keys, BaseURL: "http://10.0.0.1:8080", Ignition: noIgnition{}})
	if err != nil {
		t.Fatal(err)
	}
	apply(t, s, &engine.PutImageSet{ImageSet: engine.ImageSet{Name: "testbed", CPUArchitecture: "x86_64", Profile: "discovery", BaseISO: "/x/base.iso"}})
	// A clock a minute later on every reading: times written apart differ.
	var minutes atomic.Int64
	now := func() time.Time {
		return time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC).Add(time.Duration(minutes.Add(1)) * time.Minute)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- acm.Run(ctx, acm.Options{Store: s, Sealer: sealer, Keys: keys, Domain: domain(t, s, keys), ISOs: isos,
			ServiceURL: "http://10.0.0.1:8080", Now: now})
	}()
	t.Cleanup(func() { cancel(); <-done })
	apply(t, s, &engine.PutObject{Create: true, Object: engine.Object{ObjectRef: engine.NamespaceRef("ns"), UID: "n", Body: json.RawMessage(`{}`)}})
	putPullSecret(t, s, sealer, "ps", "s", `{"auths":{}}`)
	return s, sealer
}

// ieStatus is the InfraEnv ns/ie's status.
type ieStatus struct {
	Conditions         []struct{ Type, Status, Reason, Message, LastTransitionTime string }
	ISODownloadURL     string `json:"isoDownloadURL"`
	CreatedTime        string `json:"createdTime"`
	ObservedGeneration int64  `json:"observedGeneration"`
	BootArtifacts      struct {
		IPXEScript string `json:"ipxeScript"`
	} `json:"bootArtifacts"`
}

func infraEnvStatus(m *engine.Model) ieStatus {
	o, _ := m.Object(engine.ObjectRef{Group: "agent-install.openshift.io", Kind: "InfraEnv", Namespace: "ns", Name: "ie"}.Key())
	var b struct{ Status ieStatus }
	_ = json.Unmarshal(o.Body, &b)
	return b.Status
}

func (s ieStatus) created() bool {
	return len(s.Conditions) == 1 && s.Conditions[0].Status == "True" && s.ISODownloadURL != ""
}

// nmstateConfig is an NMStateConfig of ns labelled cluster=label for a
// NIC with mac.
func nmstateConfig(label, mac, ip string) string {
	return `{"spec":{"config":{"interfaces":[{"name":"eno1","type":"ethernet","state":"up","ipv4":{"enabled":true,"dhcp":false,` +
		`"address":[{"ip":"` + ip + `","prefix-length":24}]}}]},"interfaces":[{"name":"eno1","macAddress":"` + mac + `"}]}}`
}

func putNMState(t *testing.T, s *enginetest.Store, name, label, body string) {
	t.Helper()
	apply(t, s, &engine.PutObject{Create: true, Object: engine.Object{
		ObjectRef: engine.ObjectRef{Group: "agent-install.openshift.io", Kind: "NMStateConfig", Namespace: "ns", Name: name},
		UID:       "nms-" + name, Labels: map[string]string{"cluster": label}, Body: json.RawMessage(body)}})
}

// setInfraEnvSpec replaces the InfraEnv's spec as kubectl apply would
// (the generation moves).
func setInfraEnvSpec(t *testing.T, s *enginetest.Store, spec string) {
	t.Helper()
	var sp any
	_ = json.Unmarshal([]byte(spec), &sp)
	ref := engine.ObjectRef{Group: "agent-install.openshift.io", Kind: "InfraEnv", Namespace: "ns", Name: "ie"}
	patch(t, s, ref, func(b map[string]any) { b["spec"] = sp }, true)
}

// The NMStateConfigs an InfraEnv's nmStateConfigLabelSelector selects
// (in its namespace) are its infra-env's static network; one added,
// changed or deleted later, or a spec change, regenerates the image: a
// new isoDownloadURL and createdTime, observedGeneration the InfraEnv's
// generation. A bad NMStateConfig is ImageCreated False (no URL) until
// it is fixed; deleting the InfraEnv deletes its static network too.
func TestInfraEnvNMStateAndSpecChanges(t *testing.T) {
	s, sealer := isoEnvSealer(t)
	putNMState(t, s, "m0", "a", nmstateConfig("a", "52:54:00:00:00:01", "192.168.1.10"))
	putNMState(t, s, "other", "b", nmstateConfig("b", "52:54:00:00:00:09", "192.168.1.19"))
	apply(t, s, &engine.PutObject{Create: true, Object: engine.Object{
		ObjectRef: engine.ObjectRef{Group: "agent-install.openshift.io", Kind: "InfraEnv", Namespace: "ns", Name: "ie"}, UID: uid, Generation: 1,
		Body: json.RawMessage(`{"spec":{"pullSecretRef":{"name":"ps"},"nmStateConfigLabelSelector":{"matchLabels":{"cluster":"a"}}}}`)}})
	var st ieStatus
	waitFor(t, s, "the image", func(m *engine.Model) bool { st = infraEnvStatus(m); return st.created() })
	if !strings.HasPrefix(st.ISODownloadURL, "http://10.0.0.1:8080/images/"+uid+"/") || !strings.Contains(st.ISODownloadURL, "/discovery.iso?version=") ||
		st.ObservedGeneration != 1 || st.CreatedTime == "" || st.BootArtifacts.IPXEScript == "" {
		t.Fatalf("status %+v", st)
	}
	macs := func(m *engine.Model) []string {
		ie, _ := m.InfraEnv(uid)
		var out []string
		for c := range m.NMStateConfigs() {
			if len(ie.StaticNetworkSelector) > 0 && c.Labels["rackboot.io/infra-env"] == uid {
				for _, i := range c.Interfaces {
					out = append(out, i.MAC)
				}
			}
		}
		return out
	}
	s.Read(func(m *engine.Model) {
		if got := macs(m); len(got) != 1 || got[0] != "52:54:00:00:00:01" {
			t.Errorf("static network MACs %v, want only m0's", got)
		}
	})

	// An NMStateConfig added later: a new image.
	first := st
	putNMState(t, s, "m1", "a", nmstateConfig("a", "52:54:00:00:00:02", "192.168.1.11"))
	waitFor(t, s, "a new image with m1", func(m *engine.Model) bool {
		st = infraEnvStatus(m)
		return st.created() && st.ISODownloadURL != first.ISODownloadURL && len(macs(m)) == 2
	})
	if st.CreatedTime == first.CreatedTime {
		t.Errorf("createdTime did not move: %s", st.CreatedTime)
	}
	if st.Conditions[0].LastTransitionTime != first.Conditions[0].LastTransitionTime {
		t.Errorf("ImageCreated moved its lastTransitionTime without changing status: %q → %q",
			first.Conditions[0].LastTransitionTime, st.Conditions[0].LastTransitionTime)
	}

	// A spec change reaches the infra-env.
	second := st
	setInfraEnvSpec(t, s, `{"pullSecretRef":{"name":"ps"},"nmStateConfigLabelSelector":{"matchLabels":{"cluster":"a"}},`+
		`"sshAuthorizedKey":"ssh-ed25519 AAAA k2","proxy":{"httpProxy":"http://proxy:3128"},"additionalNTPSources":["ntp.example.com"],`+
		`"ignitionConfigOverride":"{\"ignition\":{\"version\":\"3.2.0\"}}","kernelArguments":[{"operation":"append","value":"rd.debug"}]}`)
	waitFor(t, s, "the spec on the infra-env and a new image", func(m *engine.Model) bool {
		st = infraEnvStatus(m)
		ie, _ := m.InfraEnv(uid)
		return st.created() && st.ObservedGeneration == 2 && st.ISODownloadURL != second.ISODownloadURL &&
			ie.SSHAuthorizedKey == "ssh-ed25519 AAAA k2" && ie.Proxy != nil && ie.Proxy.HTTPProxy == "http://proxy:3128" &&
			len(ie.NTPSources) == 1 && ie.IgnitionOverride != "" && len(ie.KernelArguments) == 1 && ie.KernelArguments[0].Value == "rd.debug"
	})

	// Another pull secret Secret, the other fields left out: the
	// infra-env's pull secret, its fields cleared, a new image.
	third := st
	putPullSecret(t, s, sealer, "ps2", "s2", `{"auths":{"quay.io":{}}}`)
	setInfraEnvSpec(t, s, `{"pullSecretRef":{"name":"ps2"},"nmStateConfigLabelSelector":{"matchLabels":{"cluster":"a"}}}`)
	waitFor(t, s, "the new pull secret and a new image", func(m *engine.Model) bool {
		st = infraEnvStatus(m)
		ie, _ := m.InfraEnv(uid)
		ps, _ := m.PullSecret(ie.PullSecretRef)
		return st.created() && st.ObservedGeneration == 3 && st.ISODownloadURL != third.ISODownloadURL && ps == `{"auths":{"quay.io":{}}}` &&
			ie.SSHAuthorizedKey == "" && (ie.Proxy == nil || *ie.Proxy == engine.Proxy{}) && len(ie.NTPSources) == 0 && len(ie.KernelArguments) == 0
	})

	// A bad NMStateConfig: ImageCreated False, no URL; fixed: created.
	putNMState(t, s, "bad", "a", `{"spec":{"config":{"interfaces":[]},"interfaces":[{"name":"eno1","macAddress":"not-a-mac"}]}}`)
	waitFor(t, s, "ImageCreated False", func(m *engine.Model) bool {
		st = infraEnvStatus(m)
		return len(st.Conditions) == 1 && st.Conditions[0].Status == "False" && st.Conditions[0].Reason == "ImageCreationError" &&
			strings.Contains(st.Conditions[0].Message, "NMStateConfig bad") && st.ISODownloadURL == ""
	})
	apply(t, s, &engine.DeleteObject{Ref: engine.ObjectRef{Group: "agent-install.openshift.io", Kind: "NMStateConfig", Namespace: "ns", Name: "bad"}})
	waitFor(t, s, "ImageCreated again", func(m *engine.Model) bool { st = infraEnvStatus(m); return st.created() })

	// Both deleted: no static network left.
	for _, n := range []string{"m0", "m1"} {
		apply(t, s, &engine.DeleteObject{Ref: engine.ObjectRef{Group: "agent-install.openshift.io", Kind: "NMStateConfig", Namespace: "ns", Name: n}})
	}
	waitFor(t, s, "no static network", func(m *engine.Model) bool {
		return len(macs(m)) == 0 && infraEnvStatus(m).created()
	})

	apply(t, s, &engine.DeleteObject{Ref: engine.ObjectRef{Group: "agent-install.openshift.io", Kind: "InfraEnv", Namespace: "ns", Name: "ie"}})
	waitFor(t, s, "the infra-env and its configs removed", func(m *engine.Model) bool {
		_, ok := m.InfraEnv(uid)
		n := 0
		for c := range m.NMStateConfigs() {
			if c.Labels["rackboot.io/infra-env"] == uid {
				n++
			}
		}
		return !ok && n == 0
	})
}
