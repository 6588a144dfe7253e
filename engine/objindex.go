package engine

import (
	"iter"
	"maps"
	"slices"
	"strings"
)

// objIndex lists object keys by group and kind ("group/kind/", the
// keys' first two parts), each list sorted. As hostIndex's, a list is
// never changed in place (a change makes a new one), so clones of the
// model share the lists safely. Model.Objects reads one kind's list
// instead of walking every object: a controller pass read the few
// InfraEnvs, AgentClusterInstalls and BareMetalHosts by walking 10,000
// Agents three times.
type objIndex map[string][]string

// kindPrefix is the group/kind part of an object key, "/" ended.
func kindPrefix(key string) string {
	i := strings.IndexByte(key, '/')
	j := strings.IndexByte(key[i+1:], '/')
	return key[:i+1+j+1]
}

func (x objIndex) clone() objIndex { return maps.Clone(x) }

// add lists key (not listed yet).
func (x objIndex) add(key string) {
	p := kindPrefix(key)
	l := x[p]
	i, found := slices.BinarySearch(l, key)
	if found {
		return
	}
	x[p] = slices.Insert(slices.Clip(l), i, key)
}

// remove unlists key.
func (x objIndex) remove(key string) {
	p := kindPrefix(key)
	l := x[p]
	i, found := slices.BinarySearch(l, key)
	if !found {
		return
	}
	if len(l) == 1 {
		delete(x, p)
		return
	}
	x[p] = slices.Delete(slices.Clone(l), i, i+1)
}

// indexObjects indexes objs (after a snapshot is loaded).
func indexObjects(objs map[string]*Object) objIndex {
	x := objIndex{}
	for k := range objs {
		p := kindPrefix(k)
		x[p] = append(x[p], k)
	}
	for _, l := range x {
		slices.Sort(l)
	}
	return x
}

// putObject stores o under key, keeping the object index.
func (tx *Tx) putObject(key string, o *Object) {
	tx.write()
	if _, ok := tx.m.objects[key]; !ok {
		tx.m.objIdx.add(key)
	}
	put(tx, tx.m.objects, KindObject, key, o)
}

// delObject removes key, keeping the object index.
func (tx *Tx) delObject(key string) {
	tx.write()
	if _, ok := tx.m.objects[key]; ok {
		tx.m.objIdx.remove(key)
	}
	del(tx, tx.m.objects, KindObject, key)
}

// Objects yields the objects of group and kind in key order, those of
// namespace ns only unless ns is "".
func (m *Model) Objects(group, kind, ns string) iter.Seq[Object] {
	l := m.objIdx[group+"/"+kind+"/"]
	if ns != "" {
		prefix := group + "/" + kind + "/" + ns + "/"
		i, _ := slices.BinarySearch(l, prefix)
		j := i
		for j < len(l) && strings.HasPrefix(l[j], prefix) {
			j++
		}
		l = l[i:j]
	}
	return func(yield func(Object) bool) {
		for _, k := range l {
			if !yield(*m.objects[k]) {
				return
			}
		}
	}
}
