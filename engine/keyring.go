package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/rackboot/rackboot/engine/auth"
)

// KeyRingSecret is the name of the Secret holding the key ring that signs
// agent tokens and path tokens; its data key KeyRingDataKey holds
// auth.KeyRing.Marshal's JSON. Every appliance of a rack reads the same
// ring from the replicated state, so a token one signs verifies on all.
const (
	KeyRingSecret  = "rackboot-signing-keys"
	KeyRingDataKey = "keyring.json"
)

// ErrNoKeyRing: the store holds no key ring and this node may not create
// one (it is not the leader) before ctx ended.
var ErrNoKeyRing = errors.New("engine: no signing key ring in the state")

// LoadKeyRing returns the key ring kept in st as the Secret KeyRingSecret.
// When there is none the leader creates it (one fresh key) and stores it;
// a follower waits for the leader's. It is the one way rackbootd gets its
// ring: the API and the boot services share the *auth.KeyRing it returns.
// The ring read back from the store is returned, so two callers racing to
// create it end up with the stored one. Errors never contain key material.
func LoadKeyRing(ctx context.Context, st Store, opts ...auth.Option) (*auth.KeyRing, error) {
	sub, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := st.Subscribe(sub) // before reading, so the leader's write is not missed
	for {
		if err := st.Barrier(ctx); err != nil {
			return nil, fmt.Errorf("load key ring: %w", err)
		}
		data, ok, err := readKeyRing(st)
		if err != nil {
			return nil, err
		}
		if ok {
			return unmarshalRing(data, opts)
		}
		if st.Leader() {
			if err := createKeyRing(ctx, st, opts); err != nil {
				return nil, err
			}
			continue // read back what was stored
		}
		closed, err := waitForSecret(ctx, ch)
		if err != nil {
			return nil, err
		}
		if closed {
			ch = st.Subscribe(sub)
		}
	}
}

// SaveKeyRing stores k (after Rotate or Retire) as the Secret
// KeyRingSecret, so every appliance verifies and signs with it.
func SaveKeyRing(ctx context.Context, st Store, k *auth.KeyRing) error {
	data, err := k.Marshal()
	if err != nil {
		return fmt.Errorf("save key ring: %w", err)
	}
	_, err = st.Apply(ctx, &PutSecret{Secret: Secret{
		Name: KeyRingSecret, Type: "signing-keys", Data: map[string][]byte{KeyRingDataKey: data},
	}})
	if err != nil {
		return fmt.Errorf("save key ring: %w", err)
	}
	return nil
}

// keyRingAttempts bounds UpdateKeyRing's retries when the ring keeps
// changing under it.
const keyRingAttempts = 5

// UpdateKeyRing changes the stored ring with change (Rotate, Retire) and
// returns the ring stored. It works on any appliance of a rack: it waits
// for every committed write to be applied here (a barrier), changes a copy
// of the stored ring, and writes it back only if nobody wrote it in between
// (PutSecret's IfRevision; the write is forwarded to the leader like any
// other). When somebody did, it starts again from the ring they stored, so
// two rotations on two appliances both take effect. An error of change is
// returned as it is, with nothing written.
func UpdateKeyRing(ctx context.Context, st Store, change func(k *auth.KeyRing) error, opts ...auth.Option) (*auth.KeyRing, error) {
	for attempt := 1; ; attempt++ {
		if err := st.Barrier(ctx); err != nil {
			return nil, fmt.Errorf("update key ring: %w", err)
		}
		data, rev, ok, err := readKeyRingRevision(st)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("update key ring: %w", ErrNoKeyRing)
		}
		k, err := unmarshalRing(data, opts)
		if err != nil {
			return nil, err
		}
		if err := change(k); err != nil {
			return nil, err
		}
		next, err := k.Marshal()
		if err != nil {
			return nil, fmt.Errorf("update key ring: %w", err)
		}
		_, err = st.Apply(ctx, &PutSecret{IfRevision: rev, Secret: Secret{
			Name: KeyRingSecret, Type: "signing-keys", Data: map[string][]byte{KeyRingDataKey: next},
		}})
		switch {
		case err == nil:
			return k, nil
		case !errors.Is(err, ErrConflict) || attempt == keyRingAttempts:
			return nil, fmt.Errorf("update key ring: %w", err)
		}
	}
}

// readKeyRingRevision is readKeyRing with the revision of the secret.
// The ring is sealed at rest: it is opened here (an error says so, never
// what it holds).
func readKeyRingRevision(st Store) (data []byte, rev uint64, ok bool, err error) {
	st.Read(func(m *Model) {
		var s Secret
		if s, ok = m.Secret(KeyRingSecret); ok {
			data, ok, err = m.SecretValue(KeyRingSecret, KeyRingDataKey)
			rev = s.Revision
		}
	})
	if err != nil {
		return nil, 0, false, fmt.Errorf("load key ring from secret %s: %w", KeyRingSecret, err)
	}
	return data, rev, ok, nil
}

func readKeyRing(st Store) ([]byte, bool, error) {
	data, _, ok, err := readKeyRingRevision(st)
	return data, ok, err
}

func unmarshalRing(data []byte, opts []auth.Option) (*auth.KeyRing, error) {
	k, err := auth.UnmarshalKeyRing(data, opts...)
	if err != nil {
		return nil, fmt.Errorf("load key ring from secret %s: %w", KeyRingSecret, err)
	}
	if k.ActiveKID() == "" {
		return nil, fmt.Errorf("load key ring from secret %s: %w: it holds no key", KeyRingSecret, ErrNoKeyRing)
	}
	return k, nil
}

func createKeyRing(ctx context.Context, st Store, opts []auth.Option) error {
	k := auth.NewKeyRing(opts...)
	if _, err := k.Generate(); err != nil {
		return fmt.Errorf("create key ring: %w", err)
	}
	return SaveKeyRing(ctx, st, k)
}

// waitForSecret returns when a change to KeyRingSecret (or a whole new
// model) arrives, or the feed closes (closed: subscribe again); then the
// caller re-reads.
func waitForSecret(ctx context.Context, ch <-chan Change) (closed bool, err error) {
	for {
		select {
		case <-ctx.Done():
			return false, fmt.Errorf("%w: %w", ErrNoKeyRing, ctx.Err())
		case c, ok := <-ch:
			if !ok {
				return true, nil
			}
			if c.Kind == KindAll || c.Kind == KindSecret && c.ID == KeyRingSecret {
				return false, nil
			}
		}
	}
}

// FollowKeyRing keeps k equal to the ring stored in st: each time the
// KeyRingSecret changes (another appliance rotated or retired a key, or a
// snapshot was restored) k is replaced by the stored ring, so tokens signed
// anywhere in the rack verify here. It returns when ctx is done.
func FollowKeyRing(ctx context.Context, st Store, k *auth.KeyRing, log *slog.Logger) {
	for ctx.Err() == nil {
		ch := st.Subscribe(ctx)
		syncKeyRing(st, k, log) // after subscribing, so no change is missed
		for closed := false; !closed && ctx.Err() == nil; {
			var err error
			if closed, err = waitForSecret(ctx, ch); err == nil && !closed {
				syncKeyRing(st, k, log)
			}
		}
	}
}

// syncKeyRing is SyncKeyRing with its outcome logged.
func syncKeyRing(st Store, k *auth.KeyRing, log *slog.Logger) {
	changed, err := SyncKeyRing(st, k)
	switch {
	case err != nil:
		log.Error("signing keys: stored ring not loaded; keeping the ring held", "err", err)
	case changed:
		log.Info("signing keys: followed the stored ring", "active_kid", k.ActiveKID(), "kids", len(k.KIDs()))
	}
}

// SyncKeyRing replaces k's keys by the ring stored in st when they differ
// and reports whether it did.
func SyncKeyRing(st Store, k *auth.KeyRing) (bool, error) {
	data, ok, err := readKeyRing(st)
	if err != nil || !ok {
		return false, err
	}
	if cur, err := k.Marshal(); err == nil && bytes.Equal(cur, data) {
		return false, nil
	}
	if err := k.Replace(data); err != nil {
		return false, fmt.Errorf("follow key ring from secret %s: %w", KeyRingSecret, err)
	}
	return true, nil
}
