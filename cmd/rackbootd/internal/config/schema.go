package config

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// index records where each key and value of a document is, by path. A path
// joins keys with "."; the n-th table of an array of tables and the n-th
// element of an array get "[n]" (0-based): "profile[1].kernel",
// "dhcp.range[0]". A table's path maps to the position of its header.
type index struct {
	keys   map[string]Pos
	vals   map[string]Pos
	tables map[string]int // tables so far in each array of tables
}

func newIndex() *index {
	return &index{keys: map[string]Pos{}, vals: map[string]Pos{}, tables: map[string]int{}}
}

// has reports whether the document sets path.
func (ix *index) has(path string) bool {
	_, ok := ix.keys[path]
	return ok
}

// key is the position of the key that sets path; for a path the document
// does not set, the position of the nearest enclosing table that it does.
func (ix *index) key(path string) Pos {
	for {
		if p, ok := ix.keys[path]; ok {
			return p
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			return Pos{Line: 1, Col: 1}
		}
		path = path[:i]
	}
}

// val is the position of the value at path, or of its key.
func (ix *index) val(path string) Pos {
	if p, ok := ix.vals[path]; ok {
		return p
	}
	return ix.key(path)
}

// scanner walks the parsed document, records positions and checks every key
// and value type against the Go type the document decodes into.
type scanner struct {
	p        *unstable.Parser
	ix       *index
	r        *report
	root     reflect.Type
	typeErrs int
	curPath  string
	curType  reflect.Type // nil after a bad table header: its keys are skipped
}

// scan checks data against root's schema. It returns false when the document
// is not valid TOML (the caller asks go-toml for the positioned syntax error).
func scan(r *report, data []byte, root reflect.Type) (ix *index, typeErrs int, syntaxOK bool) {
	s := &scanner{p: &unstable.Parser{}, ix: newIndex(), r: r, root: root, curType: root}
	s.p.Reset(data)
	for s.p.NextExpression() {
		e := s.p.Expression()
		switch e.Kind {
		case unstable.Table:
			s.table(e, false)
		case unstable.ArrayTable:
			s.table(e, true)
		case unstable.KeyValue:
			if s.curType != nil {
				s.keyValue(s.curPath, s.curType, e)
			}
		}
	}
	return s.ix, s.typeErrs, s.p.Error() == nil
}

func (s *scanner) table(e *unstable.Node, array bool) {
	keys := keyNodes(e)
	path, typ := "", s.root
	s.curType = nil
	for i, k := range keys {
		name := string(k.Data)
		full := join(path, name)
		f, ok := field(typ, name)
		if !ok {
			s.unknown(full, typ, k)
			return
		}
		last := i == len(keys)-1
		switch {
		case isTableArray(f):
			n := s.ix.tables[full]
			if last && array {
				s.ix.tables[full]++
			} else if last || n == 0 {
				s.typeErr(full, s.pos(k), "an array of tables ([[%s]])", "a table", display(full))
				return
			} else {
				n-- // [a.b] after [[a]] continues the latest table of a
			}
			path, typ = fmt.Sprintf("%s[%d]", full, n), f.Elem()
		case f.Kind() == reflect.Struct:
			if last && array {
				s.typeErr(full, s.pos(k), "a table ([%s])", "an array of tables", display(full))
				return
			}
			path, typ = full, f
		default:
			s.typeErr(full, s.pos(k), want(f), "a table")
			return
		}
	}
	s.ix.keys[path] = s.pos(keys[0])
	s.curPath, s.curType = path, typ
}

func (s *scanner) keyValue(base string, typ reflect.Type, e *unstable.Node) {
	keys := keyNodes(e)
	path := base
	for i, k := range keys {
		name := string(k.Data)
		full := join(path, name)
		f, ok := field(typ, name)
		if !ok {
			s.unknown(full, typ, k)
			return
		}
		if i < len(keys)-1 {
			if f.Kind() != reflect.Struct {
				s.typeErr(full, s.pos(k), want(f), "a table")
				return
			}
			path, typ = full, f
			continue
		}
		s.ix.keys[full] = s.pos(k)
		s.value(full, f, e.Value())
	}
}

func (s *scanner) value(path string, t reflect.Type, n *unstable.Node) {
	if p, ok := s.nodePos(n); ok {
		s.ix.vals[path] = p
	}
	got := n.Kind
	switch {
	case t.Kind() == reflect.Interface: // strings, or arrays of them, to any depth
		if got == unstable.Array {
			s.elements(path, t, n)
		} else if got != unstable.String {
			s.typeErr(path, s.ix.val(path), "a string", kindName(got))
		}
	case t.Kind() == reflect.String && got != unstable.String,
		t.Kind() == reflect.Bool && got != unstable.Bool,
		t.Kind() == reflect.Int && got != unstable.Integer:
		s.typeErr(path, s.ix.val(path), want(t), kindName(got))
	case t.Kind() == reflect.Slice && got != unstable.Array:
		s.typeErr(path, s.ix.val(path), want(t), kindName(got))
	case t.Kind() == reflect.Slice:
		s.elements(path, t.Elem(), n)
	case t.Kind() == reflect.Struct && got != unstable.InlineTable:
		s.typeErr(path, s.ix.val(path), want(t), kindName(got))
	case t.Kind() == reflect.Struct:
		s.ix.keys[path] = s.ix.val(path)
		it := n.Children()
		for it.Next() {
			s.keyValue(path, t, it.Node())
		}
	}
}

func (s *scanner) elements(path string, elem reflect.Type, n *unstable.Node) {
	it := n.Children()
	for i := 0; it.Next(); i++ {
		s.value(fmt.Sprintf("%s[%d]", path, i), elem, it.Node())
	}
}

func (s *scanner) unknown(path string, parent reflect.Type, k *unstable.Node) {
	msg := fmt.Sprintf("unknown key %s", display(path))
	if guess := closest(string(k.Data), fieldNames(parent)); guess != "" {
		msg += fmt.Sprintf("; did you mean %s?", guess)
	}
	s.r.add(s.pos(k), "%s", msg)
}

func (s *scanner) typeErr(path string, p Pos, wantFmt, got string, args ...any) {
	s.typeErrs++
	w := fmt.Sprintf(wantFmt, args...)
	if strings.HasSuffix(path, "]") {
		s.r.add(p, "every element of %s must be %s, not %s", display(path), w, got)
		return
	}
	s.r.add(p, "%s must be %s, not %s", display(path), w, got)
}

func (s *scanner) pos(n *unstable.Node) Pos {
	p, _ := s.nodePos(n)
	return p
}

// nodePos is where n starts. Arrays carry no range of their own: their first
// element stands in for them.
func (s *scanner) nodePos(n *unstable.Node) (Pos, bool) {
	for n != nil {
		if n.Raw.Length > 0 {
			st := s.p.Shape(n.Raw).Start
			return Pos{Line: st.Line, Col: st.Column}, true
		}
		n = n.Child()
	}
	return Pos{Line: 1, Col: 1}, false
}

func keyNodes(e *unstable.Node) []*unstable.Node {
	var keys []*unstable.Node
	it := e.Key()
	for it.Next() {
		keys = append(keys, it.Node())
	}
	return keys
}

// field is the type of the field of struct t whose toml tag is name.
func field(t reflect.Type, name string) (reflect.Type, bool) {
	if t.Kind() != reflect.Struct {
		return nil, false
	}
	for i := range t.NumField() {
		if tagName(t.Field(i)) == name {
			return t.Field(i).Type, true
		}
	}
	return nil, false
}

func fieldNames(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		names = append(names, tagName(t.Field(i)))
	}
	return names
}

func tagName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	return name
}

func isTableArray(t reflect.Type) bool {
	return t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

var indexRE = regexp.MustCompile(`\[\d+\]`)

// display is a path as a user writes it: without indices.
func display(path string) string {
	return indexRE.ReplaceAllString(path, "")
}

func want(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int:
		return "an integer"
	case reflect.Struct:
		return "a table"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Struct {
			return "an array of tables"
		}
		return "an array of " + strings.TrimPrefix(strings.TrimPrefix(want(t.Elem()), "an "), "a ") + "s"
	}
	return "a value"
}

func kindName(k unstable.Kind) string {
	switch k {
	case unstable.String:
		return "a string"
	case unstable.Bool:
		return "a boolean"
	case unstable.Integer:
		return "an integer"
	case unstable.Float:
		return "a float"
	case unstable.Array:
		return "an array"
	case unstable.InlineTable:
		return "an inline table"
	}
	return "a date or time"
}
