package cli

import (
	"context"
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rackboot/rackboot/cmd/rackbootctl/kube"
	"github.com/rackboot/rackboot/cmd/rackbootctl/output"
)

// kubeWatch is get -w of one kind (or object): the table, then a row per
// change, as kubectl get -w prints them, until the context ends. A watch
// the server ends is started again from the last version seen; one too
// old (410) lists again.
func (a *app) kubeWatch(ctx context.Context, c *kube.Client, t kubeTarget, o kubeOpts, wide bool) error {
	ns, err := a.namespaceOf(ctx, c, t, o)
	if err != nil {
		return err
	}
	lo := kube.ListOptions{LabelSelector: o.selector, Name: t.name}
	showNS := t.res.Namespaced && ns == ""
	p := output.NewPrinter(a.env.Stdout)
	header := true
	show := func(tab *metav1.Table) error {
		if len(tab.Rows) == 0 {
			return nil
		}
		err := p.Print(output.KubeTable(tab, wide, showNS), header)
		header = false
		return err
	}
	rv := ""
	for ctx.Err() == nil {
		if rv == "" {
			tab, err := c.Table(ctx, t.res, ns, "", lo)
			if err != nil {
				return quiet(ctx, err)
			}
			if err := show(tab); err != nil {
				return err
			}
			rv = tab.ResourceVersion
		}
		err := c.WatchTable(ctx, t.res, ns, rv, lo, func(_ string, tab *metav1.Table) (bool, error) {
			if v := lastVersion(tab); v != "" {
				rv = v
			}
			return false, show(tab)
		})
		switch r := kube.Reason(err); {
		case r == metav1.StatusReasonExpired || r == metav1.StatusReasonGone:
			rv = ""
		case err != nil:
			return quiet(ctx, err)
		}
	}
	return nil
}

// lastVersion is the resourceVersion of a watch event's row.
func lastVersion(tab *metav1.Table) string {
	v := ""
	for _, r := range tab.Rows {
		var m metav1.PartialObjectMetadata
		if json.Unmarshal(r.Object.Raw, &m) == nil && m.ResourceVersion != "" {
			v = m.ResourceVersion
		}
	}
	return v
}

// quiet is nil once the context ended (Ctrl-C ends a watch), else err.
func quiet(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}
