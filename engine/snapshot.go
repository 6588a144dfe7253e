package engine

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/netip"
	"slices"
)

// snapshotFormat heads every snapshot; snapshotVersion changes when the
// record layout does.
const (
	snapshotFormat  = "rackboot-model"
	snapshotVersion = 1
)

// ErrSnapshot is wrapped by errors reading a snapshot.
var ErrSnapshot = errors.New("engine: bad snapshot")

type snapshotHeader struct {
	Format    string `json:"format"`
	Version   int    `json:"version"`
	Index     uint64 `json:"index"`
	NextEvent uint64 `json:"next_event"`
}

// record is one object of a snapshot, one JSON document per line.
type record struct {
	Kind  Kind            `json:"k"`
	Value json.RawMessage `json:"v"`
}

// WriteTo writes m as a snapshot: a header line, then one line per object,
// kinds in a fixed order and objects sorted by id, so that equal models
// write equal bytes (a deterministic dump).
func (m *Model) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: bufio.NewWriterSize(w, 1<<16)}
	enc := json.NewEncoder(cw)
	err := enc.Encode(snapshotHeader{snapshotFormat, snapshotVersion, m.index, m.nextEvent})
	for _, part := range []func(*json.Encoder) error{
		writeKind(KindSecret, m.secrets), writeKind(KindImageSet, m.imageSets),
		writeKind(KindCluster, m.clusters), writeKind(KindInfraEnv, m.infraEnvs),
		writeKind(KindNMStateConfig, m.nmstate), writeKind(KindHost, m.hosts),
		m.writeLeases, m.writeEvents,
	} {
		if err != nil {
			break
		}
		err = part(enc)
	}
	if err == nil {
		err = cw.w.(*bufio.Writer).Flush()
	}
	return cw.n, err
}

func writeKind[T any](kind Kind, objs map[string]*T) func(*json.Encoder) error {
	return func(enc *json.Encoder) error {
		for _, id := range slices.Sorted(maps.Keys(objs)) {
			if err := writeRecord(enc, kind, objs[id]); err != nil {
				return err
			}
		}
		return nil
	}
}

func writeRecord(enc *json.Encoder, kind Kind, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("engine: snapshot %s: %w", kind, err)
	}
	return enc.Encode(record{Kind: kind, Value: b})
}

func (m *Model) writeLeases(enc *json.Encoder) error {
	for _, ip := range slices.SortedFunc(maps.Keys(m.leases), netip.Addr.Compare) {
		if err := writeRecord(enc, KindLease, RecordOf(m.leases[ip])); err != nil {
			return err
		}
	}
	return nil
}

func (m *Model) writeEvents(enc *json.Encoder) error {
	for _, e := range m.events {
		if err := writeRecord(enc, KindEvent, e); err != nil {
			return err
		}
	}
	return nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// ReadModel reads a snapshot written by WriteTo.
func ReadModel(r io.Reader) (*Model, error) {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<16))
	var h snapshotHeader
	if err := dec.Decode(&h); err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrSnapshot, err)
	}
	if h.Format != snapshotFormat || h.Version != snapshotVersion {
		return nil, fmt.Errorf("%w: format %q version %d", ErrSnapshot, h.Format, h.Version)
	}
	m := NewModel()
	m.index, m.nextEvent = h.Index, h.NextEvent
	tx := &Tx{m: m, index: h.Index}
	for {
		var rec record
		err := dec.Decode(&rec)
		if err == io.EOF {
			return m, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrSnapshot, err)
		}
		if err := m.load(tx, rec); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrSnapshot, rec.Kind, err)
		}
	}
}

// load stores one snapshot record as it was, Meta included.
func (m *Model) load(tx *Tx, rec record) error {
	switch rec.Kind {
	case KindSecret:
		return loadInto(rec.Value, m.secrets, func(v *Secret) string { return v.Name })
	case KindImageSet:
		return loadInto(rec.Value, m.imageSets, func(v *ImageSet) string { return v.Name })
	case KindCluster:
		return loadInto(rec.Value, m.clusters, func(v *Cluster) string { return v.ID })
	case KindInfraEnv:
		return loadInto(rec.Value, m.infraEnvs, func(v *InfraEnv) string { return v.ID })
	case KindNMStateConfig:
		return loadInto(rec.Value, m.nmstate, func(v *NMStateConfig) string { return v.Name })
	case KindHost:
		return loadInto(rec.Value, m.hosts, func(v *Host) string { return v.ID })
	case KindLease:
		var r LeaseRecord
		if err := json.Unmarshal(rec.Value, &r); err != nil {
			return err
		}
		l, err := r.Lease()
		if err != nil {
			return err
		}
		tx.putLease(l)
	case KindEvent:
		e := new(Event)
		if err := json.Unmarshal(rec.Value, e); err != nil {
			return err
		}
		m.events = append(m.events, e)
	default:
		return fmt.Errorf("unknown kind")
	}
	return nil
}

func loadInto[T any](b []byte, objs map[string]*T, key func(*T) string) error {
	v := new(T)
	if err := json.Unmarshal(b, v); err != nil {
		return err
	}
	objs[key(v)] = v
	return nil
}
