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
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 1<<16)
	err := writeLine(bw, snapshotHeader{snapshotFormat, snapshotVersion, m.index, m.nextEvent})
	for _, part := range []func(*bufio.Writer) error{
		writeKind(KindSecret, m.secrets), writeKind(KindImageSet, m.imageSets),
		writeKind(KindCluster, m.clusters), writeKind(KindInfraEnv, m.infraEnvs),
		writeKind(KindNMStateConfig, m.nmstate), writeKind(KindHost, m.hosts),
		writeKind(KindBareMetalHost, m.bmhs), writeKind(KindObject, m.objects),
		m.writeLeases, m.writeEvents,
	} {
		if err != nil {
			break
		}
		err = part(bw)
	}
	if err == nil {
		err = bw.Flush()
	}
	return cw.n, err
}

func writeKind[T any](kind Kind, objs map[string]*T) func(*bufio.Writer) error {
	return func(w *bufio.Writer) error {
		for _, id := range slices.Sorted(maps.Keys(objs)) {
			if err := writeRecord(w, kind, objs[id]); err != nil {
				return err
			}
		}
		return nil
	}
}

// writeRecord writes {"k":kind,"v":v} and a newline, encoding v once.
func writeRecord(w *bufio.Writer, kind Kind, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("engine: snapshot %s: %w", kind, err)
	}
	w.WriteString(`{"k":"`)
	w.WriteString(string(kind))
	w.WriteString(`","v":`)
	w.Write(b)
	_, err = w.WriteString("}\n")
	return err
}

func writeLine(w *bufio.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.Write(b)
	return w.WriteByte('\n')
}

func (m *Model) writeLeases(w *bufio.Writer) error {
	for _, ip := range slices.SortedFunc(maps.Keys(m.leases), netip.Addr.Compare) {
		if err := writeRecord(w, KindLease, RecordOf(m.leases[ip])); err != nil {
			return err
		}
	}
	return nil
}

func (m *Model) writeEvents(w *bufio.Writer) error {
	for _, e := range m.events {
		if err := writeRecord(w, KindEvent, e); err != nil {
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
	tx := &Tx{m: m, index: h.Index, quiet: true}
	for {
		var rec record
		err := dec.Decode(&rec)
		if err == io.EOF {
			m.hostIdx = indexHosts(m.hosts)
			m.objIdx = indexObjects(m.objects)
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
	case KindBareMetalHost:
		return loadInto(rec.Value, m.bmhs, func(v *BareMetalHost) string { return v.Name })
	case KindObject:
		return loadInto(rec.Value, m.objects, func(v *Object) string { return v.Key() })
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
		if n := len(m.events); e.Seq >= m.nextEvent || n > 0 && e.Seq <= m.events[n-1].Seq || n >= MaxEvents {
			return fmt.Errorf("event %d out of order", e.Seq)
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
