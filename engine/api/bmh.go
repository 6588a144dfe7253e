package api

import (
	"net/http"
	"strconv"

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
	b, err := s.bmhs.Get(r.PathValue("name"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.bmhView(b))
	return nil
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
	out, err := s.bmhs.Create(r.Context(), b, in.Credentials, in.PreprovisioningNetworkData)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, s.bmhView(out))
	return nil
}

func (s *server) patchBMH(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	name := r.PathValue("name")
	if _, err := s.bmhs.Get(name); err != nil {
		return err
	}
	var in models.BareMetalHostPatch
	if err := decodeWarn(w, r, maxBody, &in); err != nil {
		return err
	}
	var annotations map[string]*string
	if in.Metadata != nil {
		annotations = in.Metadata.Annotations
	}
	out, err := s.bmhs.Update(r.Context(), name, bmhPatch(in), in.Metadata != nil, annotations, in.Credentials)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.bmhView(out))
	return nil
}

func (s *server) deleteBMH(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	if err := s.bmhs.Delete(r.Context(), r.PathValue("name")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
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
