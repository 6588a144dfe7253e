package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rackboot/rackboot/cmd/rackbootctl/kube"
	"github.com/rackboot/rackboot/cmd/rackbootctl/output"
)

// ErrAmbiguous: a name found in several namespaces without -n.
var ErrAmbiguous = errors.New("ambiguous name")

// kubeOpts are the flags of get, describe and delete of the kube kinds.
type kubeOpts struct {
	ns, selector, format string
	all, watch           bool
}

func (o *kubeOpts) register(fs *flag.FlagSet, withFormat bool) {
	for _, n := range []string{"n", "namespace"} {
		fs.StringVar(&o.ns, n, "", "the `namespace` (default: every namespace for a list; the one holding the name)")
	}
	for _, n := range []string{"A", "all-namespaces"} {
		fs.BoolVar(&o.all, n, false, "every namespace")
	}
	for _, n := range []string{"l", "selector"} {
		fs.StringVar(&o.selector, n, "", "label `selector` (app=x,tier!=y, env in (a,b))")
	}
	if withFormat {
		fs.StringVar(&o.format, "o", "", "output `format`: wide, yaml, json, name or jsonpath=TEMPLATE (default a table)")
	}
}

// kubeTarget is one kind and, when the user named one, an object.
type kubeTarget struct {
	res  kube.Resource
	name string
}

// kubeTargets reads TYPE[,TYPE] [NAME...] or TYPE/NAME...
func (a *app) kubeTargets(ctx context.Context, c *kube.Client, verb string, pos []string) ([]kubeTarget, error) {
	if len(pos) == 0 {
		return nil, usageError("%s: which kind? (agents, infraenvs, aci, ... or KIND/NAME)", verb)
	}
	var out []kubeTarget
	if strings.Contains(pos[0], "/") {
		for _, p := range pos {
			typ, name, ok := strings.Cut(p, "/")
			if !ok || name == "" {
				return nil, usageError("%s: %q: give every object as KIND/NAME", verb, p)
			}
			r, err := resolveKind(ctx, c, verb, typ)
			if err != nil {
				return nil, err
			}
			out = append(out, kubeTarget{r, name})
		}
		return out, nil
	}
	types := strings.Split(pos[0], ",")
	if len(types) > 1 && len(pos) > 1 {
		return nil, usageError("%s: names go with one kind (or use KIND/NAME)", verb)
	}
	for _, typ := range types {
		r, err := resolveKind(ctx, c, verb, typ)
		if err != nil {
			return nil, err
		}
		if len(pos) == 1 {
			out = append(out, kubeTarget{res: r})
		}
		for _, n := range pos[1:] {
			out = append(out, kubeTarget{r, n})
		}
	}
	return out, nil
}

// namespaceOf is where t is read: "" for a cluster-scoped kind or a list
// of every namespace; -n; else the one namespace holding t's name.
func (a *app) namespaceOf(ctx context.Context, c *kube.Client, t kubeTarget, o kubeOpts) (string, error) {
	switch {
	case !t.res.Namespaced || (t.name == "" && (o.all || o.ns == "")):
		return "", nil
	case o.ns != "":
		return o.ns, nil
	}
	l, err := c.List(ctx, t.res, "", kube.ListOptions{Name: t.name})
	if err != nil {
		return "", err
	}
	var nss []string
	for _, it := range l.Items {
		nss = append(nss, it.GetNamespace())
	}
	sort.Strings(nss)
	switch len(nss) {
	case 0:
		return "", &kube.StatusError{Status: metav1.Status{Reason: metav1.StatusReasonNotFound, Code: 404,
			Message: fmt.Sprintf("%s %q not found in any namespace", t.res.GroupResource(), t.name)}}
	case 1:
		return nss[0], nil
	}
	return "", fmt.Errorf("%w: %s %q is in the namespaces %s: pass -n", ErrAmbiguous, t.res.GroupResource(), t.name, strings.Join(nss, ", "))
}

func (a *app) kubeGet(ctx context.Context, args []string) error {
	var o kubeOpts
	fs := a.flagSet("get")
	o.register(fs, true)
	for _, n := range []string{"w", "watch"} {
		fs.BoolVar(&o.watch, n, false, "after the table, print a row per change until Ctrl-C (one kind, table or wide)")
	}
	pos, err := a.parse(fs, args, "get KIND[,KIND] [NAME...] | KIND/NAME... [-n NS | -A] [-l SELECTOR] [-o FORMAT] [-w]")
	if err != nil {
		return err
	}
	f, tmpl, err := kubeFormat(o.format)
	if err != nil {
		return err
	}
	c, err := a.kubeClient()
	if err != nil {
		return err
	}
	ts, err := a.kubeTargets(ctx, c, "get", pos)
	if err != nil {
		return err
	}
	if o.watch {
		if len(ts) != 1 || (f != "table" && f != "wide") {
			return usageError("get -w watches one kind or object, as a table (-o wide)")
		}
		return a.kubeWatch(ctx, c, ts[0], o, f == "wide")
	}
	if f == "table" || f == "wide" {
		return a.kubeTables(ctx, c, ts, o, f == "wide")
	}
	var objs []any
	for _, t := range ts {
		got, err := a.kubeObjects(ctx, c, t, o)
		if err != nil {
			return err
		}
		for _, u := range got {
			if f == "name" {
				fmt.Fprintf(a.env.Stdout, "%s/%s\n", t.res.GroupKind(), u.GetName())
			}
			objs = append(objs, u.Object)
		}
	}
	if f == "name" {
		return nil
	}
	var v any = map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{"resourceVersion": ""}, "items": nonNil(objs)}
	if len(ts) == 1 && ts[0].name != "" {
		v = objs[0]
	}
	switch f {
	case "json":
		return output.WriteJSON(a.env.Stdout, v)
	case "yaml":
		return output.WriteYAML(a.env.Stdout, v)
	}
	return output.WriteJSONPath(a.env.Stdout, tmpl, v)
}

// kubeFormat splits -o into the format and a jsonpath template.
func kubeFormat(s string) (string, string, error) {
	if t, ok := strings.CutPrefix(s, "jsonpath="); ok {
		if t == "" {
			return "", "", usageError("-o jsonpath= needs a template, such as jsonpath={.metadata.name}")
		}
		return "jsonpath", t, nil
	}
	switch s {
	case "":
		return "table", "", nil
	case "wide", "yaml", "json", "name":
		return s, "", nil
	}
	return "", "", usageError("unknown output format %q (want wide, yaml, json, name or jsonpath=TEMPLATE)", s)
}

// kubeObjects reads the objects of one target.
func (a *app) kubeObjects(ctx context.Context, c *kube.Client, t kubeTarget, o kubeOpts) ([]*unstructured.Unstructured, error) {
	ns, err := a.namespaceOf(ctx, c, t, o)
	if err != nil {
		return nil, err
	}
	if t.name != "" {
		u, err := c.Get(ctx, t.res, ns, t.name)
		if err != nil {
			return nil, err
		}
		return []*unstructured.Unstructured{u}, nil
	}
	l, err := c.List(ctx, t.res, ns, kube.ListOptions{LabelSelector: o.selector})
	if err != nil {
		return nil, err
	}
	out := make([]*unstructured.Unstructured, len(l.Items))
	for i := range l.Items {
		out[i] = &l.Items[i]
	}
	return out, nil
}

// kubeTables prints the server's Table of each kind, a blank line
// between kinds, as kubectl does.
func (a *app) kubeTables(ctx context.Context, c *kube.Client, ts []kubeTarget, o kubeOpts, wide bool) error {
	printed := false
	for _, t := range ts {
		ns, err := a.namespaceOf(ctx, c, t, o)
		if err != nil {
			return err
		}
		tab, err := c.Table(ctx, t.res, ns, t.name, kube.ListOptions{LabelSelector: o.selector})
		if err != nil {
			return err
		}
		if len(tab.Rows) == 0 {
			continue
		}
		if printed {
			fmt.Fprintln(a.env.Stdout)
		}
		showNS := t.res.Namespaced && ns == "" && t.name == ""
		if err := output.NewPrinter(a.env.Stdout).Print(output.KubeTable(tab, wide, showNS), true); err != nil {
			return err
		}
		printed = true
	}
	if !printed {
		where := ""
		if o.ns != "" && !o.all {
			where = " in " + o.ns + " namespace"
		}
		fmt.Fprintf(a.env.Stderr, "No resources found%s.\n", where)
	}
	return nil
}

// nonNil is vs, or an empty list.
func nonNil(vs []any) []any {
	if vs == nil {
		return []any{}
	}
	return vs
}

// resolveKind is the kind typ names; an unknown one is a usage error
// that lists the REST resources too.
func resolveKind(ctx context.Context, c *kube.Client, verb, typ string) (kube.Resource, error) {
	r, err := c.Resolve(ctx, typ)
	if errors.Is(err, kube.ErrUnknownKind) {
		return r, usageError("%s: %v; REST: clusters, infra-envs, hosts, events, bmh", verb, err)
	}
	return r, err
}
