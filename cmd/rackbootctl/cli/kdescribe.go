package cli

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/rackboot/rackboot/cmd/rackbootctl/kube"
	"github.com/rackboot/rackboot/cmd/rackbootctl/output"
)

// kubeDescribe prints each object as kubectl describe prints a custom
// resource: its metadata, spec and status as indented YAML, then the
// Events about it.
func (a *app) kubeDescribe(ctx context.Context, args []string) error {
	var o kubeOpts
	fs := a.flagSet("describe")
	o.register(fs, false)
	pos, err := a.parse(fs, args, "describe KIND [NAME...] | KIND/NAME... [-n NS | -A] [-l SELECTOR]")
	if err != nil {
		return err
	}
	c, err := a.kubeClient()
	if err != nil {
		return err
	}
	ts, err := a.kubeTargets(ctx, c, "describe", pos)
	if err != nil {
		return err
	}
	first := true
	for _, t := range ts {
		objs, err := a.kubeObjects(ctx, c, t, o)
		if err != nil {
			return err
		}
		for _, u := range objs {
			if !first {
				fmt.Fprintln(a.env.Stdout)
			}
			first = false
			if err := a.describeObject(ctx, c, u); err != nil {
				return err
			}
		}
	}
	if first {
		fmt.Fprintln(a.env.Stderr, "No resources found.")
	}
	return nil
}

func (a *app) describeObject(ctx context.Context, c *kube.Client, u *unstructured.Unstructured) error {
	w := a.env.Stdout
	fmt.Fprintf(w, "Name:         %s\n", u.GetName())
	if u.GetNamespace() != "" {
		fmt.Fprintf(w, "Namespace:    %s\n", u.GetNamespace())
	}
	fmt.Fprintf(w, "Labels:       %s\n", pairs(u.GetLabels(), "="))
	ann := u.GetAnnotations()
	delete(ann, kube.LastApplied)
	fmt.Fprintf(w, "Annotations:  %s\n", pairs(ann, ": "))
	fmt.Fprintf(w, "API Version:  %s\nKind:         %s\n", u.GetAPIVersion(), u.GetKind())
	for _, sec := range []string{"spec", "status", "data", "stringData", "type"} {
		v, ok := u.Object[sec]
		if !ok {
			continue
		}
		if sec == "data" && u.GetKind() == "Secret" {
			v = secretSizes(v) // as kubectl: the sizes, never the values
		}
		if err := writeSection(w, strings.ToUpper(sec[:1])+sec[1:], v); err != nil {
			return err
		}
	}
	return a.describeEvents(ctx, c, u)
}

// pairs prints a map sorted, one per line, aligned under the first.
func pairs(m map[string]string, sep string) string {
	if len(m) == 0 {
		return "<none>"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	lines := make([]string, len(keys))
	for i, k := range keys {
		lines[i] = k + sep + m[k]
	}
	return strings.Join(lines, "\n              ")
}

// secretSizes is a Secret's data as "N bytes" per key.
func secretSizes(v any) any {
	m, _ := v.(map[string]any)
	out := map[string]any{}
	for k, e := range m {
		s, _ := e.(string)
		out[k] = fmt.Sprintf("%d bytes", base64.StdEncoding.DecodedLen(len(s))-strings.Count(s, "="))
	}
	return out
}

// writeSection writes "Title:" and v as YAML indented by two spaces.
func writeSection(w io.Writer, title string, v any) error {
	var b strings.Builder
	if err := output.WriteYAML(&b, v); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s:\n", title)
	for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		fmt.Fprintf(w, "  %s\n", l)
	}
	return nil
}

// describeEvents prints the v1 Events whose involvedObject is u.
func (a *app) describeEvents(ctx context.Context, c *kube.Client, u *unstructured.Unstructured) error {
	evRes, err := c.ResolveKind(ctx, "v1", "Event")
	if err != nil {
		fmt.Fprintln(a.env.Stdout, "Events:       <none>")
		return nil //nolint:nilerr // a server without Events describes without them
	}
	sel := "involvedObject.name=" + u.GetName() + ",involvedObject.kind=" + u.GetKind()
	if u.GetNamespace() != "" {
		sel += ",involvedObject.namespace=" + u.GetNamespace()
	}
	l, err := c.ListFields(ctx, evRes, u.GetNamespace(), sel)
	if err != nil {
		return err
	}
	if len(l.Items) == 0 {
		fmt.Fprintln(a.env.Stdout, "Events:       <none>")
		return nil
	}
	tab := output.Table{Header: []string{"  TYPE", "REASON", "AGE", "FROM", "MESSAGE"}}
	now := a.env.Now()
	for _, e := range l.Items {
		typ, _, _ := unstructured.NestedString(e.Object, "type")
		reason, _, _ := unstructured.NestedString(e.Object, "reason")
		msg, _, _ := unstructured.NestedString(e.Object, "message")
		from, _, _ := unstructured.NestedString(e.Object, "source", "component")
		last, _, _ := unstructured.NestedString(e.Object, "lastTimestamp")
		age := "<unknown>"
		if t, err := time.Parse(time.RFC3339, last); err == nil {
			age = duration.HumanDuration(now.Sub(t))
		}
		tab.Rows = append(tab.Rows, []string{"  " + typ, reason, age, from, msg})
	}
	fmt.Fprintln(a.env.Stdout, "Events:")
	return output.NewPrinter(a.env.Stdout).Print(tab, true)
}
