package engine

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Deletion propagation, as kube-apiserver's store sets it from a delete's
// propagationPolicy (deletionFinalizersForGarbageCollection): Orphan puts
// the orphan finalizer on the object, Foreground the foregroundDeletion
// one, Background neither; the garbage collector (engine/kubegc) removes
// them once it has orphaned or deleted the object's dependents.
const (
	PropagateOrphan     = "Orphan"
	PropagateForeground = "Foreground"
	PropagateBackground = "Background"

	// FinalizerOrphan holds a deleted object until its dependents'
	// ownerReferences to it are removed.
	FinalizerOrphan = "orphan"
	// FinalizerForeground holds a deleted object until its dependents
	// that block its deletion (blockOwnerDeletion) are gone.
	FinalizerForeground = "foregroundDeletion"
)

// propagationFinalizers is fs with the garbage collector's finalizers set
// as policy p asks ("": fs as it is: its own orphan or foregroundDeletion
// finalizer decides, as kube-apiserver's), and whether they changed.
func propagationFinalizers(fs []string, p string) ([]string, bool, error) {
	var add string
	switch p {
	case "":
		return fs, false, nil
	case PropagateOrphan:
		add = FinalizerOrphan
	case PropagateForeground:
		add = FinalizerForeground
	case PropagateBackground:
	default:
		return nil, false, invalid("propagation policy %q: not Orphan, Foreground or Background", p)
	}
	out := slices.DeleteFunc(slices.Clone(fs), func(f string) bool { return f == FinalizerOrphan || f == FinalizerForeground })
	if add != "" {
		out = append(out, add)
	}
	was, now := slices.Clone(fs), slices.Clone(out)
	slices.Sort(was)
	slices.Sort(now)
	if slices.Equal(slices.Compact(was), slices.Compact(now)) {
		return fs, false, nil
	}
	return out, true, nil
}

// WithFinalizers is o with its body's metadata.finalizers set to fs (none:
// the field removed), the rest of the body kept.
func (o Object) WithFinalizers(fs []string) (Object, error) {
	var top, md map[string]json.RawMessage
	if err := json.Unmarshal(o.Body, &top); err != nil {
		return o, fmt.Errorf("object %s: %w", o.Key(), err)
	}
	if raw, ok := top["metadata"]; ok {
		if err := json.Unmarshal(raw, &md); err != nil {
			return o, fmt.Errorf("object %s metadata: %w", o.Key(), err)
		}
	}
	if md == nil {
		md = map[string]json.RawMessage{}
	}
	if len(fs) == 0 {
		delete(md, "finalizers")
	} else {
		b, _ := json.Marshal(fs)
		md["finalizers"] = b
	}
	if top == nil {
		top = map[string]json.RawMessage{}
	}
	top["metadata"], _ = json.Marshal(md)
	body, err := json.Marshal(top)
	if err != nil {
		return o, fmt.Errorf("object %s: %w", o.Key(), err)
	}
	o.Body = body
	return o, nil
}
