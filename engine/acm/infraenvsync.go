package acm

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/rackboot/rackboot/boot/nmstate"
	"github.com/rackboot/rackboot/engine"
)

// kindNMState is upstream's NMStateConfig.
const kindNMState = "NMStateConfig"

// labelStaticNet labels the domain NMState configs of an infra-env (its
// id), as the REST API labels those of static_network_config; the
// infra-env selects them by it.
const labelStaticNet = "rackboot.io/infra-env"

// errTransient marks a failure to retry on the next pass (the store), as
// opposed to a spec the domain refuses, which the status reports.
var errTransient = errors.New("transient")

// transient marks err transient unless the domain refused the input.
func transient(err error) error {
	if err == nil || errors.Is(err, engine.ErrInvalid) {
		return err
	}
	return fmt.Errorf("%w: %w", errTransient, err)
}

// staticName is the domain name of NMStateConfig name mirrored for the
// infra-env ieID.
func staticName(ieID, name string) string { return "infraenv-" + ieID + "-" + name }

// staticConfigs are the domain NMState configs of the NMStateConfigs in
// obj's namespace that sel selects (none for an empty selector, as
// upstream: not all of them), each checked as the REST API checks
// static_network_config.
func staticConfigs(o Options, obj engine.Object, sel metav1.LabelSelector) ([]engine.NMStateConfig, error) {
	selector, err := metav1.LabelSelectorAsSelector(&sel)
	if err != nil {
		return nil, fmt.Errorf("spec.nmStateConfigLabelSelector: %w", err)
	}
	if selector.Empty() {
		return nil, nil
	}
	var objs []engine.Object
	o.Store.Read(func(m *engine.Model) {
		for n := range m.Objects(groupAgent, kindNMState, obj.Namespace) {
			if !n.Deleting() && selector.Matches(labels.Set(n.Labels)) {
				objs = append(objs, n)
			}
		}
	})
	out := make([]engine.NMStateConfig, 0, len(objs))
	for _, n := range objs {
		h, err := parseNMState(n)
		if err != nil {
			return nil, fmt.Errorf("NMStateConfig %s: %w", n.Name, err)
		}
		c := engine.NMStateConfig{Name: staticName(obj.UID, n.Name), Labels: map[string]string{labelStaticNet: obj.UID},
			Config: h.NetworkYAML}
		for _, i := range h.MACInterfaceMap {
			c.Interfaces = append(c.Interfaces, engine.MACInterface{MAC: i.MACAddress, Name: i.LogicalNICName})
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b engine.NMStateConfig) int { return cmp.Compare(a.Name, b.Name) })
	return out, nil
}

// syncStatic makes infra-env ieID's domain NMState configs want: those
// gone or changed are deleted, the new ones created.
func syncStatic(ctx context.Context, o Options, ieID string, want []engine.NMStateConfig) error {
	have := map[string]engine.NMStateConfig{}
	o.Store.Read(func(m *engine.Model) {
		for c := range m.NMStateConfigs() {
			if c.Labels[labelStaticNet] == ieID && c.Labels[engine.LabelNetworkDataBMH] == "" { // not a BareMetalHost's
				c.Meta = engine.Meta{}
				have[c.Name] = c
			}
		}
	})
	keep := map[string]bool{}
	for _, c := range want {
		if h, ok := have[c.Name]; ok && sameStatic(h, c) {
			keep[c.Name] = true
		}
	}
	for name := range have {
		if keep[name] {
			continue
		}
		if _, err := o.Store.Apply(ctx, &engine.DeleteNMStateConfig{Name: name}); err != nil && !errors.Is(err, engine.ErrNotFound) {
			return fmt.Errorf("delete NMState config %s: %w", name, transient(err))
		}
	}
	for _, c := range want {
		if keep[c.Name] {
			continue
		}
		if _, err := o.Store.Apply(ctx, &engine.CreateNMStateConfig{Config: c}); err != nil {
			return fmt.Errorf("create NMState config %s: %w", c.Name, transient(err))
		}
	}
	return nil
}

func sameStatic(a, b engine.NMStateConfig) bool {
	return a.Config == b.Config && maps.Equal(a.Labels, b.Labels) && slices.Equal(a.Interfaces, b.Interfaces)
}

// putPullSecret stores ps as infra-env id's pull secret unless it is.
func putPullSecret(ctx context.Context, o Options, id, ps string) error {
	var cur string
	o.Store.Read(func(m *engine.Model) { cur, _ = m.PullSecret(secretName(id)) })
	if cur == ps {
		return nil
	}
	secret := engine.Secret{Name: secretName(id), Type: "pull-secret", Data: map[string][]byte{engine.PullSecretKey: []byte(ps)}}
	if _, err := o.Store.Apply(ctx, &engine.PutSecret{Secret: secret}); err != nil {
		return fmt.Errorf("pull secret: %w", transient(err))
	}
	return nil
}

// update takes a changed InfraEnv spec (pull secret, NMStateConfigs,
// proxy, NTP sources, SSH key, Ignition override, kernel arguments) to
// its infra-env. The cluster reference cannot change (Admission), nor the
// CPU architecture, which picks the image set.
func update(ctx context.Context, o Options, obj engine.Object, s spec, ps string, static []engine.NMStateConfig) error {
	if err := putPullSecret(ctx, o, obj.UID, ps); err != nil {
		return err
	}
	if err := syncStatic(ctx, o, obj.UID, static); err != nil {
		return err
	}
	var cur engine.InfraEnv
	o.Store.Read(func(m *engine.Model) { cur, _ = m.InfraEnv(obj.UID) })
	want := desired(obj, s)
	p, changed := infraEnvPatch(cur, want)
	if !changed {
		return nil
	}
	if _, err := o.Store.Apply(ctx, &engine.UpdateInfraEnv{ID: obj.UID, Patch: p}); err != nil {
		return fmt.Errorf("update infra-env: %w", transient(err))
	}
	o.Log.Info("InfraEnv spec taken to its infra-env", "infra_env", obj.UID, "name", obj.Namespace+"/"+obj.Name)
	return nil
}

// infraEnvPatch is the patch from cur to want's spec fields.
func infraEnvPatch(cur, want engine.InfraEnv) (engine.InfraEnvPatch, bool) {
	var p engine.InfraEnvPatch
	changed := false
	str := func(dst **string, c, w string) {
		if c != w {
			*dst, changed = &w, true
		}
	}
	str(&p.Name, cur.Name, want.Name)
	str(&p.PullSecretRef, cur.PullSecretRef, want.PullSecretRef)
	str(&p.SSHAuthorizedKey, cur.SSHAuthorizedKey, want.SSHAuthorizedKey)
	str(&p.IgnitionOverride, cur.IgnitionOverride, want.IgnitionOverride)
	if proxyOf(cur) != proxyOf(want) {
		px := proxyOf(want)
		p.Proxy, changed = &px, true
	}
	// Empty, not nil: a patch's nil slice or map is JSON null, which the
	// command's decoding takes for "leave it".
	if !slices.Equal(cur.NTPSources, want.NTPSources) {
		v := append([]string{}, want.NTPSources...)
		p.NTPSources, changed = &v, true
	}
	if !slices.Equal(cur.KernelArguments, want.KernelArguments) {
		v := append([]engine.KernelArgument{}, want.KernelArguments...)
		p.KernelArguments, changed = &v, true
	}
	if !maps.Equal(cur.StaticNetworkSelector, want.StaticNetworkSelector) {
		v := maps.Clone(want.StaticNetworkSelector)
		if v == nil {
			v = map[string]string{}
		}
		p.StaticNetworkSelector, changed = &v, true
	}
	return p, changed
}

func proxyOf(ie engine.InfraEnv) engine.Proxy {
	if ie.Proxy == nil {
		return engine.Proxy{}
	}
	return *ie.Proxy
}

// parseNMState checks NMStateConfig n's spec as the REST API checks an
// NMStateConfig document (errors name spec.config… and spec.interfaces…).
func parseNMState(n engine.Object) (nmstate.HostStaticNetworkConfig, error) {
	var b struct {
		Spec json.RawMessage `json:"spec"`
	}
	if err := json.Unmarshal(n.Body, &b); err != nil || len(b.Spec) == 0 {
		return nmstate.HostStaticNetworkConfig{}, errors.New("no spec")
	}
	doc, _ := json.Marshal(map[string]any{"apiVersion": groupAgent + "/v1beta1", "kind": kindNMState, "spec": b.Spec})
	return nmstate.ParseNMStateConfig(doc)
}
