package acm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/bmhctl"
)

// Kinds and keys of upstream's BareMetalHost and its Baremetal Agent
// Controller (BMAC).
const (
	groupMetal3 = "metal3.io"
	kindBMH     = "BareMetalHost"
	// labelAgentBMH is the Agent's label naming its BareMetalHost.
	labelAgentBMH = "agent-install.openshift.io/bmh"
	// annotationInspect "disabled" keeps Ironic from inspecting the host
	// (the agent's inventory is its hardware), as upstream's BMAC sets it.
	annotationInspect  = "inspect.metal3.io"
	annotationHardware = "inspect.metal3.io/hardwaredetails"
	// labelBMHUID marks a domain BareMetalHost made from a BareMetalHost
	// object (its uid).
	labelBMHUID = "rackboot.io/baremetalhost-uid"
)

// bmhSpec is the part of metal3's BareMetalHost spec mapped.
type bmhSpec struct {
	BMC struct {
		Address                        string `json:"address"`
		CredentialsName                string `json:"credentialsName"`
		DisableCertificateVerification bool   `json:"disableCertificateVerification"`
	} `json:"bmc"`
	BootMACAddress  string `json:"bootMACAddress"`
	Online          bool   `json:"online"`
	RootDeviceHints *struct {
		DeviceName       string `json:"deviceName"`
		HCTL             string `json:"hctl"`
		Model            string `json:"model"`
		Vendor           string `json:"vendor"`
		SerialNumber     string `json:"serialNumber"`
		MinSizeGigabytes int64  `json:"minSizeGigabytes"`
		WWN              string `json:"wwn"`
		Rotational       *bool  `json:"rotational"`
	} `json:"rootDeviceHints"`
	AutomatedCleaningMode          string `json:"automatedCleaningMode"`
	BootMode                       string `json:"bootMode"`
	PreprovisioningNetworkDataName string `json:"preprovisioningNetworkDataName"`
}

// bmhDomainName is the domain name of BareMetalHost ns/name (namespaces
// have no dots, so it is unique).
func bmhDomainName(ns, name string) string { return ns + "." + name }

// bmcSecretName is the domain Secret of the BMC credentials Secret ns/name.
func bmcSecretName(ns, name string) string { return "bmc-" + ns + "." + name }

// networkSecretName is the domain Secret of the network data Secret
// ns/name.
func networkSecretName(ns, name string) string { return "netdata-" + ns + "." + name }

// domainBMH is the domain BareMetalHost obj describes: the infra-env label
// is the uid of the InfraEnv the label names in obj's namespace (none when
// there is no such InfraEnv yet), the bmac annotations (checked as the
// REST API checks them) and the detached one are kept.
func domainBMH(o Options, obj engine.Object) (engine.BareMetalHost, error) {
	var s bmhSpec
	if err := decodeSpec(obj, &s); err != nil {
		return engine.BareMetalHost{}, fmt.Errorf("decode: %w", err)
	}
	b := engine.BareMetalHost{Name: bmhDomainName(obj.Namespace, obj.Name), Labels: map[string]string{labelBMHUID: obj.UID},
		Annotations: map[string]string{}, BootMACAddress: s.BootMACAddress, Online: s.Online,
		AutomatedCleaningMode: s.AutomatedCleaningMode, BootMode: s.BootMode}
	b.BMC.Address, b.BMC.DisableCertificateVerification = s.BMC.Address, s.BMC.DisableCertificateVerification
	if s.BMC.CredentialsName != "" {
		b.BMC.CredentialsName = bmcSecretName(obj.Namespace, s.BMC.CredentialsName)
	}
	if s.PreprovisioningNetworkDataName != "" {
		b.PreprovisioningNetworkDataName = networkSecretName(obj.Namespace, s.PreprovisioningNetworkDataName)
	}
	if h := s.RootDeviceHints; h != nil {
		b.RootDeviceHints = &engine.RootDeviceHints{DeviceName: h.DeviceName, HCTL: h.HCTL, Model: h.Model, Vendor: h.Vendor,
			SerialNumber: h.SerialNumber, MinSizeGigabytes: h.MinSizeGigabytes, WWN: h.WWN, Rotational: h.Rotational}
	}
	for k, v := range annotationsOf(obj) {
		if strings.HasPrefix(k, engine.AnnotationPrefix) || strings.HasPrefix(k, engine.AnnotationAgentLabelPrefix) || k == engine.AnnotationDetached {
			b.Annotations[k] = v
		}
	}
	if err := bmhctl.CheckAnnotations(b.Annotations); err != nil {
		return b, err
	}
	if ref := obj.Labels[labelInfraEnv]; ref != "" {
		o.Store.Read(func(m *engine.Model) {
			if ie, ok := m.Object(engine.ObjectRef{Group: groupAgent, Kind: kindInfraEnv, Namespace: obj.Namespace, Name: ref}.Key()); ok {
				if _, made := m.InfraEnv(ie.UID); made {
					b.Labels[engine.LabelInfraEnv] = ie.UID
				}
			}
		})
	}
	return b, nil
}

// annotationsOf is obj's metadata.annotations.
func annotationsOf(obj engine.Object) map[string]string {
	var b struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(obj.Body, &b)
	return b.Metadata.Annotations
}

// putBMCSecret copies the username and password of Secret ns/name to the
// domain Secret a domain BareMetalHost names, sealed under its name,
// unless it holds them already.
func putBMCSecret(ctx context.Context, o Options, ns, name string) error {
	user, err := openSecret(o, ns, name, engine.BMCSecretUsername)
	if err != nil {
		return err
	}
	pass, err := openSecret(o, ns, name, engine.BMCSecretPassword)
	if err != nil {
		return err
	}
	dn := bmcSecretName(ns, name)
	var cur engine.Secret
	var ok bool
	o.Store.Read(func(m *engine.Model) { cur, ok = m.Secret(dn) })
	if ok {
		u, uerr := o.Sealer.Open(dn, engine.BMCSecretUsername, cur.Data[engine.BMCSecretUsername])
		p, perr := o.Sealer.Open(dn, engine.BMCSecretPassword, cur.Data[engine.BMCSecretPassword])
		if uerr == nil && perr == nil && string(u) == user && string(p) == pass {
			return nil
		}
	}
	su, err := o.Sealer.Seal(dn, engine.BMCSecretUsername, []byte(user))
	if err != nil {
		return err
	}
	sp, err := o.Sealer.Seal(dn, engine.BMCSecretPassword, []byte(pass))
	if err != nil {
		return err
	}
	_, err = o.Store.Apply(ctx, &engine.PutSecret{Secret: engine.Secret{Name: dn, Type: engine.BMCSecretType,
		Data: map[string][]byte{engine.BMCSecretUsername: su, engine.BMCSecretPassword: sp}}})
	if err != nil {
		return fmt.Errorf("BMC credentials: %w", transient(err))
	}
	return nil
}

// syncBMH makes or updates the domain BareMetalHost of obj; the BMH
// controller (engine/bmhctl) drives it from there.
func syncBMH(ctx context.Context, o Options, obj engine.Object, want engine.BareMetalHost) error {
	var s bmhSpec
	_ = decodeSpec(obj, &s)
	if s.BMC.CredentialsName != "" {
		if err := putBMCSecret(ctx, o, obj.Namespace, s.BMC.CredentialsName); err != nil {
			return err
		}
	}
	if s.PreprovisioningNetworkDataName != "" {
		if err := putNetworkSecret(ctx, o, obj.Namespace, s.PreprovisioningNetworkDataName); err != nil {
			return err
		}
	}
	var cur engine.BareMetalHost
	var ok bool
	o.Store.Read(func(m *engine.Model) { cur, ok = m.BareMetalHost(want.Name) })
	if !ok {
		if _, err := o.Store.Apply(ctx, &engine.CreateBareMetalHost{Host: want}); err != nil {
			return fmt.Errorf("create baremetal host: %w", transient(err))
		}
		o.Log.Info("BareMetalHost created its domain host", "bmh", want.Name)
		return nil
	}
	if cur.Labels[labelBMHUID] != obj.UID {
		return fmt.Errorf("baremetal host %s exists and was not made from this BareMetalHost", want.Name)
	}
	p, changed := bmhPatch(cur, want)
	if !changed {
		return nil
	}
	if _, err := o.Store.Apply(ctx, &engine.UpdateBareMetalHost{Name: want.Name, Patch: p}); err != nil {
		return fmt.Errorf("update baremetal host: %w", transient(err))
	}
	return nil
}

// bmhPatch is the patch from cur to want: the spec fields, the labels
// rackboot sets and the annotations the object carries (an annotation
// the domain added, such as detached, stays).
func bmhPatch(cur, want engine.BareMetalHost) (engine.BMHPatch, bool) {
	var p engine.BMHPatch
	changed := false
	set := func(dst **string, c, w string) {
		if c != w {
			*dst, changed = &w, true
		}
	}
	set(&p.Address, cur.BMC.Address, want.BMC.Address)
	set(&p.CredentialsName, cur.BMC.CredentialsName, want.BMC.CredentialsName)
	set(&p.BootMACAddress, cur.BootMACAddress, want.BootMACAddress)
	set(&p.AutomatedCleaningMode, cur.AutomatedCleaningMode, want.AutomatedCleaningMode)
	set(&p.BootMode, cur.BootMode, want.BootMode)
	set(&p.PreprovisioningNetworkDataName, cur.PreprovisioningNetworkDataName, want.PreprovisioningNetworkDataName)
	if cur.BMC.DisableCertificateVerification != want.BMC.DisableCertificateVerification {
		v := want.BMC.DisableCertificateVerification
		p.DisableCertificateVerification, changed = &v, true
	}
	if cur.Online != want.Online {
		v := want.Online
		p.Online, changed = &v, true
	}
	if !reflect.DeepEqual(cur.RootDeviceHints, want.RootDeviceHints) && want.RootDeviceHints != nil {
		p.RootDeviceHints, changed = want.RootDeviceHints, true
	}
	p.Labels = mergePatch(cur.Labels, want.Labels, []string{engine.LabelInfraEnv, labelBMHUID})
	p.Annotations = mergePatch(cur.Annotations, want.Annotations, nil)
	for k := range cur.Annotations {
		if _, ok := want.Annotations[k]; !ok && k != engine.AnnotationDetached &&
			(strings.HasPrefix(k, engine.AnnotationPrefix) || strings.HasPrefix(k, engine.AnnotationAgentLabelPrefix)) {
			p.Annotations[k] = nil
		}
	}
	if len(p.Labels) > 0 || len(p.Annotations) > 0 {
		changed = true
	}
	return p, changed
}

// mergePatch sets the keys of want that cur lacks or differs in, and
// removes the owned keys want lacks.
func mergePatch(cur, want map[string]string, owned []string) map[string]*string {
	p := map[string]*string{}
	for k, v := range want {
		if c, ok := cur[k]; !ok || c != v {
			p[k] = &v
		}
	}
	for _, k := range owned {
		if _, ok := want[k]; !ok {
			if _, has := cur[k]; has {
				p[k] = nil
			}
		}
	}
	return p
}

// deleteStaleBMHs deletes the domain BareMetalHosts made from objects no
// longer there (keep: the uids of the objects), and their credentials and
// network data no other names.
func deleteStaleBMHs(ctx context.Context, o Options, keep map[string]bool) {
	var stale []engine.BareMetalHost
	o.Store.Read(func(m *engine.Model) {
		for b := range m.BareMetalHosts() {
			if uid := b.Labels[labelBMHUID]; uid != "" && !keep[uid] {
				stale = append(stale, b)
			}
		}
	})
	for _, b := range stale {
		_, err := o.Store.Apply(ctx, &engine.DeleteBareMetalHost{Name: b.Name})
		if err != nil && !errors.Is(err, engine.ErrNotFound) {
			o.Log.Warn("removing the host of a deleted BareMetalHost", "bmh", b.Name, "err", err)
			continue
		}
		for _, sec := range []string{b.BMC.CredentialsName, b.PreprovisioningNetworkDataName} {
			if sec != "" && !secretUsed(o, sec) {
				_, _ = o.Store.Apply(ctx, &engine.DeleteSecret{Name: sec})
			}
		}
	}
}

// secretUsed reports whether a domain BareMetalHost names Secret name.
func secretUsed(o Options, name string) bool {
	used := false
	o.Store.Read(func(m *engine.Model) {
		for b := range m.BareMetalHosts() {
			used = used || b.BMC.CredentialsName == name || b.PreprovisioningNetworkDataName == name
		}
	})
	return used
}

// putNetworkSecret copies the nmstate key of Secret ns/name (the
// discovery image's static network, as metal3's
// preprovisioningNetworkDataName) to the domain Secret the domain
// BareMetalHost names, unless it holds it already.
func putNetworkSecret(ctx context.Context, o Options, ns, name string) error {
	doc, err := openSecret(o, ns, name, engine.NetworkDataKey)
	if err != nil {
		return err
	}
	dn := networkSecretName(ns, name)
	var cur []byte
	o.Store.Read(func(m *engine.Model) { cur, _, _ = m.SecretValue(dn, engine.NetworkDataKey) })
	if string(cur) == doc {
		return nil
	}
	_, err = o.Store.Apply(ctx, &engine.PutSecret{Secret: engine.Secret{Name: dn, Type: engine.NetworkDataSecretType,
		Data: map[string][]byte{engine.NetworkDataKey: []byte(doc)}}})
	if err != nil {
		return fmt.Errorf("network data: %w", transient(err))
	}
	return nil
}
