package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/rackboot/rackboot/boot/nmstate"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/bmhctl"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/models"
)

// BareMetalHost kind and API version as metal3 names them.
const (
	bmhKind       = "BareMetalHost"
	bmhAPIVersion = "metal3.io/v1alpha1"
)

// errNoSealer: credentials came but the daemon has no sealing key.
var errNoSealer = errors.New("api: no secret sealer configured: cannot store BMC credentials")

func (s *server) listBMHs(w http.ResponseWriter, _ *http.Request, _ auth.Principal) error {
	out := models.BareMetalHostList{}
	s.store.Read(func(m *engine.Model) {
		for b := range m.BareMetalHosts() {
			out = append(out, bmhOut(b, hardwareOf(m, b)))
		}
	})
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *server) getBMH(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	b, err := s.bmh(r.PathValue("name"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.bmhView(b))
	return nil
}

func (s *server) bmh(name string) (engine.BareMetalHost, error) {
	var (
		b  engine.BareMetalHost
		ok bool
	)
	s.store.Read(func(m *engine.Model) { b, ok = m.BareMetalHost(name) })
	if !ok {
		return b, fmt.Errorf("%w: baremetal host %s", ErrNotFound, hosts.Clip(name))
	}
	return b, nil
}

func (s *server) createBMH(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	var in models.BareMetalHostCreate
	if err := decodeWarn(w, r, maxBody, &in); err != nil {
		return err
	}
	if in.Kind != "" && in.Kind != bmhKind {
		return badRequest("kind %q is not %s", hosts.Clip(in.Kind), bmhKind)
	}
	b := bmhIn(in.BareMetalHost)
	if in.Credentials != nil && b.BMC.CredentialsName == "" {
		b.BMC.CredentialsName = b.Name + "-bmc-secret"
	}
	if err := bmhctl.CheckAnnotations(b.Annotations); err != nil {
		return badRequest("baremetal host %s: %v", hosts.Clip(b.Name), err)
	}
	if _, err := s.bmh(b.Name); err == nil {
		return fmt.Errorf("%w: baremetal host %s exists", ErrConflict, b.Name)
	}
	if in.PreprovisioningNetworkData != nil {
		if b.PreprovisioningNetworkDataName == "" {
			b.PreprovisioningNetworkDataName = b.Name + "-network-config-secret"
		}
		if err := s.checkNetworkSecret(b.PreprovisioningNetworkDataName, *in.PreprovisioningNetworkData); err != nil {
			return err
		}
	}
	ctx := r.Context()
	create := &engine.CreateBareMetalHost{Host: b}
	if err := engine.Check(s.store, create); err != nil { // before its secrets are stored
		return fmt.Errorf("create baremetal host: %w", err)
	}
	if in.Credentials != nil {
		if err := s.putBMCSecret(ctx, b.BMC.CredentialsName, *in.Credentials); err != nil {
			return err
		}
	}
	if in.PreprovisioningNetworkData != nil {
		_, err := s.store.Apply(ctx, &engine.PutSecret{Secret: engine.Secret{Name: b.PreprovisioningNetworkDataName,
			Type: engine.NetworkDataSecretType, Data: map[string][]byte{engine.NetworkDataKey: []byte(*in.PreprovisioningNetworkData)}}})
		if err != nil {
			return fmt.Errorf("store preprovisioning network data: %w", err)
		}
	}
	out, err := engine.ApplyAs[engine.BareMetalHost](ctx, s.store, create)
	if err != nil {
		return fmt.Errorf("create baremetal host: %w", err)
	}
	s.hosts.Event(ctx, engine.Event{Name: "bmh_created", Severity: "info", Props: map[string]string{"bmh": b.Name},
		Message: fmt.Sprintf("BareMetalHost %s: created (BMC %s)", b.Name, b.BMC.Address)})
	writeJSON(w, http.StatusCreated, s.bmhView(out))
	return nil
}

// checkNetworkSecret refuses network data that is not NMState YAML, or a
// secret name that holds something else.
func (s *server) checkNetworkSecret(name, doc string) error {
	if _, err := nmstate.Convert([]byte(doc), nil); err != nil {
		return badRequest("preprovisioningNetworkData: %v", err)
	}
	var (
		old engine.Secret
		ok  bool
	)
	s.store.Read(func(m *engine.Model) { old, ok = m.Secret(name) })
	if ok && old.Type != engine.NetworkDataSecretType {
		return fmt.Errorf("%w: secret %s exists and does not hold network data", ErrConflict, hosts.Clip(name))
	}
	return nil
}

// putBMCSecret seals c into secret name. A secret of that name that is not
// a BMC credentials secret (a pull secret) is not overwritten.
func (s *server) putBMCSecret(ctx context.Context, name string, c models.BMCCredentials) error {
	if s.sealer == nil {
		return errNoSealer
	}
	if c.Username == "" || c.Password == "" {
		return badRequest("credentials need a username and a password")
	}
	var (
		old engine.Secret
		ok  bool
	)
	s.store.Read(func(m *engine.Model) { old, ok = m.Secret(name) })
	if ok && old.Type != engine.BMCSecretType {
		return fmt.Errorf("%w: secret %s exists and does not hold BMC credentials", ErrConflict, hosts.Clip(name))
	}
	user, err := s.sealer.Seal(name, engine.BMCSecretUsername, []byte(c.Username))
	if err != nil {
		return err
	}
	pass, err := s.sealer.Seal(name, engine.BMCSecretPassword, []byte(c.Password))
	if err != nil {
		return err
	}
	_, err = s.store.Apply(ctx, &engine.PutSecret{Secret: engine.Secret{Name: name, Type: engine.BMCSecretType,
		Data: map[string][]byte{engine.BMCSecretUsername: user, engine.BMCSecretPassword: pass}}})
	if err != nil {
		return fmt.Errorf("store BMC credentials: %w", err)
	}
	return nil
}

func (s *server) patchBMH(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	b, err := s.bmh(r.PathValue("name"))
	if err != nil {
		return err
	}
	var in models.BareMetalHostPatch
	if err := decodeWarn(w, r, maxBody, &in); err != nil {
		return err
	}
	p := bmhPatch(in)
	if in.Metadata != nil {
		merged := engineMerge(b.Annotations, in.Metadata.Annotations)
		if err := bmhctl.CheckAnnotations(merged); err != nil {
			return badRequest("baremetal host %s: %v", b.Name, err)
		}
	}
	ctx := r.Context()
	update := &engine.UpdateBareMetalHost{Name: b.Name, Patch: p}
	if err := engine.Check(s.store, update); err != nil { // before its credentials are stored
		return fmt.Errorf("update baremetal host: %w", err)
	}
	if in.Credentials != nil {
		name := b.BMC.CredentialsName
		if p.CredentialsName != nil {
			name = *p.CredentialsName
		}
		if err := s.putBMCSecret(ctx, name, *in.Credentials); err != nil {
			return err
		}
		update.Patch.RetryNow = true
	}
	out, err := engine.ApplyAs[engine.BareMetalHost](ctx, s.store, update)
	if err != nil {
		return fmt.Errorf("update baremetal host: %w", err)
	}
	writeJSON(w, http.StatusOK, s.bmhView(out))
	return nil
}

func (s *server) deleteBMH(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	b, err := s.bmh(r.PathValue("name"))
	if err != nil {
		return err
	}
	ctx := r.Context()
	if _, err := s.store.Apply(ctx, &engine.DeleteBareMetalHost{Name: b.Name}); err != nil {
		return fmt.Errorf("delete baremetal host: %w", err)
	}
	if s.secretUnused(b.BMC.CredentialsName) {
		if _, err := s.store.Apply(ctx, &engine.DeleteSecret{Name: b.BMC.CredentialsName}); err != nil && !errors.Is(err, engine.ErrNotFound) {
			s.log.WarnContext(ctx, "delete BMC credentials", "bmh", b.Name, "err", err)
		}
	}
	s.hosts.Event(ctx, engine.Event{Name: "bmh_deleted", Severity: "info", Props: map[string]string{"bmh": b.Name},
		Message: fmt.Sprintf("BareMetalHost %s: deleted", b.Name)})
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// secretUnused: name is a BMC credentials secret no BMH names.
func (s *server) secretUnused(name string) bool {
	unused := false
	s.store.Read(func(m *engine.Model) {
		sec, ok := m.Secret(name)
		if !ok || sec.Type != engine.BMCSecretType {
			return
		}
		for b := range m.BareMetalHosts() {
			if b.BMC.CredentialsName == name {
				return
			}
		}
		unused = true
	})
	return unused
}

// engineMerge applies a merge patch to a copy of m.
func engineMerge(m map[string]string, p map[string]*string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = v
	}
	for k, v := range p {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = *v
		}
	}
	return out
}

// bmhIn is the engine object of a REST BareMetalHost (status ignored).
func bmhIn(in models.BareMetalHost) engine.BareMetalHost {
	b := engine.BareMetalHost{
		Name: in.Metadata.Name, Labels: in.Metadata.Labels, Annotations: in.Metadata.Annotations,
		BMC: engine.BMC{Address: in.Spec.BMC.Address, CredentialsName: in.Spec.BMC.CredentialsName,
			DisableCertificateVerification: in.Spec.BMC.DisableCertificateVerification},
		BootMACAddress: in.Spec.BootMACAddress, Online: in.Spec.Online,
		AutomatedCleaningMode: in.Spec.AutomatedCleaningMode, BootMode: in.Spec.BootMode,
		PreprovisioningNetworkDataName: in.Spec.PreprovisioningNetworkDataName,
	}
	if h := in.Spec.RootDeviceHints; h != nil {
		eh := engine.RootDeviceHints(*h)
		b.RootDeviceHints = &eh
	}
	return b
}

func bmhPatch(in models.BareMetalHostPatch) engine.BMHPatch {
	p := engine.BMHPatch{RetryNow: in.Retry}
	if m := in.Metadata; m != nil {
		p.Labels, p.Annotations = m.Labels, m.Annotations
	}
	sp := in.Spec
	if sp == nil {
		return p
	}
	if c := sp.BMC; c != nil {
		p.Address, p.CredentialsName, p.DisableCertificateVerification = c.Address, c.CredentialsName, c.DisableCertificateVerification
	}
	p.BootMACAddress, p.Online, p.AutomatedCleaningMode = sp.BootMACAddress, sp.Online, sp.AutomatedCleaningMode
	p.BootMode, p.PreprovisioningNetworkDataName = sp.BootMode, sp.PreprovisioningNetworkDataName
	if h := sp.RootDeviceHints; h != nil {
		eh := engine.RootDeviceHints(*h)
		p.RootDeviceHints = &eh
	}
	return p
}

// bmhView is the REST form of b with the hardware of its paired host.
func (s *server) bmhView(b engine.BareMetalHost) *models.BareMetalHost {
	var hw *models.HardwareDetails
	s.store.Read(func(m *engine.Model) { hw = hardwareOf(m, b) })
	return bmhOut(b, hw)
}

// hardwareOf is status.hardware of b: its paired host's inventory.
func hardwareOf(m *engine.Model, b engine.BareMetalHost) *models.HardwareDetails {
	h, ok := m.Host(b.Status.HostID)
	if !ok || h.BMHName != b.Name {
		return nil
	}
	return bmhctl.Hardware(h)
}

// bmhOut is the REST form of a BMH.
func bmhOut(b engine.BareMetalHost, hw *models.HardwareDetails) *models.BareMetalHost {
	st := b.Status
	out := &models.BareMetalHost{
		APIVersion: bmhAPIVersion, Kind: bmhKind,
		Metadata: models.ObjectMeta{Name: b.Name, Labels: b.Labels, Annotations: b.Annotations,
			CreationTimestamp: dt(b.CreatedAt), ResourceVersion: strconv.FormatUint(b.Revision, 10)},
		Spec: models.BareMetalHostSpec{
			BMC: models.BMCDetails{Address: b.BMC.Address, CredentialsName: b.BMC.CredentialsName,
				DisableCertificateVerification: b.BMC.DisableCertificateVerification},
			BootMACAddress: b.BootMACAddress, Online: b.Online, AutomatedCleaningMode: b.AutomatedCleaningMode,
			BootMode: b.BootMode, PreprovisioningNetworkDataName: b.PreprovisioningNetworkDataName,
		},
		Status: &models.BareMetalHostStatus{
			OperationalStatus: st.OperationalStatus, ErrorType: st.ErrorType, ErrorMessage: st.ErrorMessage,
			ErrorCount: st.ErrorCount, PoweredOn: st.PowerState == "On", PowerState: st.PowerState,
			Provisioning:  models.BareMetalHostProvStatus{State: st.ProvisioningState},
			LastOperation: st.LastOperation, LastUpdated: dt(st.LastOperationAt), NextRetryTime: dt(st.NextRetryAt),
			HostID: st.HostID, Hardware: hw,
		},
	}
	if h := b.RootDeviceHints; h != nil {
		mh := models.RootDeviceHints(*h)
		out.Spec.RootDeviceHints = &mh
	}
	return out
}
