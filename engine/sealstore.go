package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
)

// Secrets at rest: every value of every Secret is sealed (Sealer) before
// the command that stores it is appended, so neither the raft log nor a
// snapshot holds a pull secret, a signing key, a BMC password or a
// cluster's kubeconfig in clear. The store seals (Machine.Seal, called by
// the Store before it appends), the model keeps what the log holds, and
// the readers that need the clear text open it (Model.OpenSecret,
// Model.SecretValue). A value stored in clear by an older rackboot reads
// as it is.

// SetSealer gives the machine the key that seals secret values on their
// way into the log and opens them for readers. Call it before the first
// command or snapshot is applied; nil (the default) seals nothing and
// opens nothing.
func (s *Machine) SetSealer(sl *Sealer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sealer = sl
	s.m.sealer = sl
}

// Seal seals, in place, the secret values cmd would store that are not
// sealed yet: a Store calls it before it encodes cmd. Without a sealer it
// does nothing.
func (s *Machine) Seal(cmd Command) error {
	s.mu.RLock()
	sl := s.sealer
	s.mu.RUnlock()
	if sl == nil {
		return nil
	}
	if f, ok := cmd.(*Fenced); ok {
		cmd = f.Cmd
	}
	put, ok := cmd.(*PutSecret)
	if !ok {
		return nil
	}
	data, err := sl.sealAll(put.Secret.Name, put.Secret.Data)
	if err != nil {
		return err
	}
	put.Secret.Data = data
	return nil
}

// sealAll returns a copy of data with every value sealed for secret name.
func (s *Sealer) sealAll(name string, data map[string][]byte) (map[string][]byte, error) {
	if len(data) == 0 {
		return data, nil
	}
	out := make(map[string][]byte, len(data))
	for k, v := range data {
		if IsSealed(v) {
			out[k] = v
			continue
		}
		sv, err := s.Seal(name, k, v)
		if err != nil {
			return nil, fmt.Errorf("seal secret %s: %w", name, err)
		}
		out[k] = sv
	}
	return out, nil
}

// SecretValue returns the clear value under key of the secret named name:
// opened when it is sealed, as stored when an older rackboot stored it in
// clear. A sealed value that does not open (no key, or another key) is
// ErrUnseal.
func (m *Model) SecretValue(name, key string) ([]byte, bool, error) {
	s, ok := m.secrets[name]
	if !ok {
		return nil, false, nil
	}
	v, ok := s.Data[key]
	if !ok {
		return nil, false, nil
	}
	v, err := m.open(name, key, v)
	return v, true, err
}

// OpenSecret returns the secret named name with every value clear
// (SecretValue); Secret returns it as stored.
func (m *Model) OpenSecret(name string) (Secret, bool, error) {
	s, ok := m.Secret(name)
	if !ok {
		return s, false, nil
	}
	data := maps.Clone(s.Data)
	for k, v := range data {
		cv, err := m.open(name, k, v)
		if err != nil {
			return Secret{}, true, err
		}
		data[k] = cv
	}
	s.Data = data
	return s, true, nil
}

// open opens a stored value (a clear one is returned as it is).
func (m *Model) open(name, key string, v []byte) ([]byte, error) {
	if !IsSealed(v) {
		return v, nil
	}
	if m.sealer == nil {
		return nil, fmt.Errorf("%w: %s/%s: no sealing key", ErrUnseal, name, key)
	}
	return m.sealer.Open(name, key, v)
}

// SealStoredSecrets seals the secret values an older rackboot stored in
// clear: each such secret is written again, sealed, unless it changed in
// between (PutSecret's IfRevision). It returns how many it sealed. The
// clear entries leave the log as raft compacts it. rackbootd runs it when
// it starts leading.
func SealStoredSecrets(ctx context.Context, st Store, sl *Sealer) (int, error) {
	var clear []Secret
	st.Read(func(m *Model) {
		for s := range m.Secrets() {
			for _, v := range s.Data {
				if !IsSealed(v) {
					clear = append(clear, s)
					break
				}
			}
		}
	})
	n := 0
	for _, s := range clear {
		data, err := sl.sealAll(s.Name, s.Data)
		if err != nil {
			return n, err
		}
		_, err = st.Apply(ctx, &PutSecret{IfRevision: s.Revision, Secret: Secret{Name: s.Name, Type: s.Type, Data: data}})
		switch {
		case errors.Is(err, ErrConflict): // rewritten meanwhile, sealed
		case err != nil:
			return n, fmt.Errorf("seal stored secret %s: %w", s.Name, err)
		default:
			n++
		}
	}
	return n, nil
}
