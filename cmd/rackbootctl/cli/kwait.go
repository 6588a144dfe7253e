package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rackboot/rackboot/cmd/rackbootctl/kube"
)

// ErrTimeout: wait's --timeout passed first.
var ErrTimeout = errors.New("timed out waiting for the condition")

// waitFor is what wait waits for: a condition's status, or deletion.
type waitFor struct {
	condition, status string // condition=NAME[=STATUS] (status True by default)
	deleted           bool
}

// parseFor reads --for=condition=NAME[=VALUE] and --for=delete.
func parseFor(s string) (waitFor, error) {
	if s == "delete" {
		return waitFor{deleted: true}, nil
	}
	c, ok := strings.CutPrefix(s, "condition=")
	if !ok || c == "" {
		return waitFor{}, usageError("wait: --for must be condition=NAME[=VALUE] or delete (got %q)", s)
	}
	name, val, ok := strings.Cut(c, "=")
	if !ok {
		val = "True"
	}
	return waitFor{condition: name, status: val}, nil
}

// met reports whether u satisfies w (deletion is seen elsewhere).
func (w waitFor) met(u *unstructured.Unstructured) bool {
	if w.deleted || u == nil {
		return false
	}
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		t, _ := m["type"].(string)
		st, _ := m["status"].(string)
		if strings.EqualFold(t, w.condition) && strings.EqualFold(st, w.status) {
			return true
		}
	}
	return false
}

// wait waits, through watches, until each named object has a condition
// or is deleted, as kubectl wait does.
func (a *app) wait(ctx context.Context, args []string) error {
	var o kubeOpts
	var forS string
	var timeout time.Duration
	fs := a.flagSet("wait")
	o.register(fs, false)
	fs.StringVar(&forS, "for", "", "condition=NAME[=VALUE] (VALUE True by default) or delete")
	fs.DurationVar(&timeout, "timeout", 30*time.Second, "how long to wait (0: check once)")
	pos, err := a.parse(fs, args, "wait --for=condition=NAME[=VALUE]|delete KIND/NAME... | KIND NAME... [-n NS] [--timeout=D]")
	if err != nil {
		return err
	}
	w, err := parseFor(forS)
	if err != nil {
		return err
	}
	c, err := a.kubeClient()
	if err != nil {
		return err
	}
	ts, err := a.kubeTargets(ctx, c, "wait", pos)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, max(timeout, time.Millisecond))
	defer cancel()
	for _, t := range ts {
		if t.name == "" {
			return usageError("wait: name the objects (KIND/NAME)")
		}
		ns, err := a.namespaceOf(ctx, c, t, o)
		if kube.IsNotFound(err) && w.deleted {
			fmt.Fprintf(a.env.Stdout, "%s/%s deleted\n", t.res.GroupKind(), t.name)
			continue
		}
		if err != nil {
			return err
		}
		if err := waitOne(ctx, c, t.res, ns, t.name, w); err != nil {
			return err
		}
		what := "condition met"
		if w.deleted {
			what = "deleted"
		}
		fmt.Fprintf(a.env.Stdout, "%s/%s %s\n", t.res.GroupKind(), t.name, what)
	}
	return nil
}

// waitOne reads the object, then watches it from that version until w
// holds; a watch the server ends or expires is started again after a
// new read.
func waitOne(ctx context.Context, c *kube.Client, r kube.Resource, ns, name string, w waitFor) error {
	for {
		u, err := c.Get(ctx, r, ns, name)
		switch {
		case kube.IsNotFound(err) && w.deleted:
			return nil
		case kube.IsNotFound(err):
			u = nil // wait for it to appear
		case err != nil:
			return timeoutError(ctx, err, r, name)
		}
		if w.met(u) {
			return nil
		}
		rv := ""
		if u != nil {
			rv = u.GetResourceVersion()
		}
		done := false
		err = c.Watch(ctx, r, ns, rv, kube.ListOptions{Name: name}, func(ev kube.Event) (bool, error) {
			done = (ev.Type == "DELETED" && w.deleted) || (ev.Type != "DELETED" && w.met(ev.Object))
			return done, nil
		})
		if done {
			return nil
		}
		if err != nil && kube.Reason(err) != "Expired" && kube.Reason(err) != "Gone" {
			return timeoutError(ctx, err, r, name)
		}
	}
}

// timeoutError words a context deadline as kubectl does.
func timeoutError(ctx context.Context, err error, r kube.Resource, name string) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w on %s/%s", ErrTimeout, r.Name, name)
	}
	return err
}
