package bmhs

import (
	"context"
	"errors"
	"fmt"

	"github.com/rackboot/rackboot/boot/nmstate"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/bmhctl"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/models"
)

// Create checks b (its annotations, its preprovisioning network data)
// and creates it, storing creds sealed in its credentials secret and the
// network data in its network data secret first; with its event. Bad
// input writes nothing.
func (s *Service) Create(ctx context.Context, b engine.BareMetalHost, creds *models.BMCCredentials, networkData *string) (engine.BareMetalHost, error) {
	if err := bmhctl.CheckAnnotations(b.Annotations); err != nil {
		return engine.BareMetalHost{}, hosts.Invalid("baremetal host %s: %v", hosts.Clip(b.Name), err)
	}
	if _, err := s.Get(b.Name); err == nil {
		return engine.BareMetalHost{}, fmt.Errorf("%w: baremetal host %s exists", hosts.ErrConflict, b.Name)
	}
	if networkData != nil {
		if b.PreprovisioningNetworkDataName == "" {
			b.PreprovisioningNetworkDataName = b.Name + "-network-config-secret"
		}
		if err := s.checkNetworkSecret(b.PreprovisioningNetworkDataName, *networkData); err != nil {
			return engine.BareMetalHost{}, err
		}
	}
	create := &engine.CreateBareMetalHost{Host: b}
	if err := engine.Check(s.store, create); err != nil { // before its secrets are stored
		return engine.BareMetalHost{}, fmt.Errorf("create baremetal host: %w", err)
	}
	if creds != nil {
		if err := s.putBMCSecret(ctx, b.BMC.CredentialsName, *creds); err != nil {
			return engine.BareMetalHost{}, err
		}
	}
	if networkData != nil {
		_, err := s.store.Apply(ctx, &engine.PutSecret{Secret: engine.Secret{Name: b.PreprovisioningNetworkDataName,
			Type: engine.NetworkDataSecretType, Data: map[string][]byte{engine.NetworkDataKey: []byte(*networkData)}}})
		if err != nil {
			return engine.BareMetalHost{}, fmt.Errorf("store preprovisioning network data: %w", err)
		}
	}
	out, err := engine.ApplyAs[engine.BareMetalHost](ctx, s.store, create)
	if err != nil {
		return engine.BareMetalHost{}, fmt.Errorf("create baremetal host: %w", err)
	}
	s.hosts.Event(ctx, engine.Event{Name: "bmh_created", Severity: "info", Props: map[string]string{"bmh": b.Name},
		Message: fmt.Sprintf("BareMetalHost %s: created (BMC %s)", b.Name, b.BMC.Address)})
	return out, nil
}

// Update applies p to BareMetalHost name: with metadata, the
// annotations merge-patched by annotations are checked first; creds are
// stored sealed (and the BMH retried now). Bad input writes nothing.
func (s *Service) Update(ctx context.Context, name string, p engine.BMHPatch, metadata bool, annotations map[string]*string,
	creds *models.BMCCredentials) (engine.BareMetalHost, error) {
	b, err := s.Get(name)
	if err != nil {
		return b, err
	}
	if metadata {
		merged := mergeAnnotations(b.Annotations, annotations)
		if err := bmhctl.CheckAnnotations(merged); err != nil {
			return engine.BareMetalHost{}, hosts.Invalid("baremetal host %s: %v", b.Name, err)
		}
	}
	update := &engine.UpdateBareMetalHost{Name: b.Name, Patch: p}
	if err := engine.Check(s.store, update); err != nil { // before its credentials are stored
		return engine.BareMetalHost{}, fmt.Errorf("update baremetal host: %w", err)
	}
	if creds != nil {
		name := b.BMC.CredentialsName
		if p.CredentialsName != nil {
			name = *p.CredentialsName
		}
		if err := s.putBMCSecret(ctx, name, *creds); err != nil {
			return engine.BareMetalHost{}, err
		}
		update.Patch.RetryNow = true
	}
	out, err := engine.ApplyAs[engine.BareMetalHost](ctx, s.store, update)
	if err != nil {
		return engine.BareMetalHost{}, fmt.Errorf("update baremetal host: %w", err)
	}
	return out, nil
}

// Delete deletes BareMetalHost name, and its BMC credentials secret when
// no other BMH names it, with its event.
func (s *Service) Delete(ctx context.Context, name string) error {
	b, err := s.Get(name)
	if err != nil {
		return err
	}
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
	return nil
}

// secretUnused: name is a BMC credentials secret no BMH names.
func (s *Service) secretUnused(name string) bool {
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

// checkNetworkSecret refuses network data that is not NMState YAML, or a
// secret name that holds something else.
func (s *Service) checkNetworkSecret(name, doc string) error {
	if _, err := nmstate.Convert([]byte(doc), nil); err != nil {
		return hosts.Invalid("preprovisioningNetworkData: %v", err)
	}
	var (
		old engine.Secret
		ok  bool
	)
	s.store.Read(func(m *engine.Model) { old, ok = m.Secret(name) })
	if ok && old.Type != engine.NetworkDataSecretType {
		return fmt.Errorf("%w: secret %s exists and does not hold network data", hosts.ErrConflict, hosts.Clip(name))
	}
	return nil
}

// putBMCSecret seals c into secret name. A secret of that name that is not
// a BMC credentials secret (a pull secret) is not overwritten.
func (s *Service) putBMCSecret(ctx context.Context, name string, c models.BMCCredentials) error {
	if s.sealer == nil {
		return ErrNoSealer
	}
	if c.Username == "" || c.Password == "" {
		return hosts.Invalid("credentials need a username and a password")
	}
	var (
		old engine.Secret
		ok  bool
	)
	s.store.Read(func(m *engine.Model) { old, ok = m.Secret(name) })
	if ok && old.Type != engine.BMCSecretType {
		return fmt.Errorf("%w: secret %s exists and does not hold BMC credentials", hosts.ErrConflict, hosts.Clip(name))
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

// mergeAnnotations applies a merge patch to a copy of m.
func mergeAnnotations(m map[string]string, p map[string]*string) map[string]string {
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
