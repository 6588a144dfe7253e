package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rackboot/rackboot/cmd/rackbootctl/kube"
)

// fileOpts are the flags of apply -f and delete -f.
type fileOpts struct {
	files          stringList
	recursive      bool
	ns             string
	dryRun         string
	ignoreNotFound bool
	wait           deleteWait
}

// deleteWait is delete's --wait and --timeout.
type deleteWait struct {
	on      bool
	timeout time.Duration
}

func (w *deleteWait) register(fs *flag.FlagSet) {
	fs.BoolVar(&w.on, "wait", true, "wait until the objects are gone (finalizers done), as kubectl does")
	fs.DurationVar(&w.timeout, "timeout", 5*time.Minute, "how long --wait waits")
}

// gone is one deleted object to wait for.
type gone struct {
	res      kube.Resource
	ns, name string
}

// waitGone waits, through watches, until every object of gs is gone.
func waitGone(ctx context.Context, c *kube.Client, w deleteWait, gs []gone) error {
	if !w.on || len(gs) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	for _, g := range gs {
		if err := waitOne(ctx, c, g.res, g.ns, g.name, waitFor{deleted: true}); err != nil {
			return err
		}
	}
	return nil
}

// stringList is a flag given several times.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

func (o *fileOpts) register(fs *flag.FlagSet) {
	for _, n := range []string{"f", "filename"} {
		fs.Var(&o.files, n, "manifest `file`, directory or - for standard input (repeatable)")
	}
	for _, n := range []string{"R", "recursive"} {
		fs.BoolVar(&o.recursive, n, false, "read the directories of -f recursively")
	}
	for _, n := range []string{"n", "namespace"} {
		fs.StringVar(&o.ns, n, "", "the `namespace` of documents that name none")
	}
	fs.StringVar(&o.dryRun, "dry-run", "none", "`server`: the server checks every object and writes nothing; none: write")
}

// readTargets reads, resolves and checks every document before anything
// is sent.
func (a *app) readTargets(ctx context.Context, verb string, o fileOpts) (*kube.Client, []kube.Target, error) {
	if len(o.files) == 0 {
		return nil, nil, usageError("%s: give the manifests with -f FILE|DIR|-", verb)
	}
	if o.dryRun != "none" && o.dryRun != "server" {
		return nil, nil, usageError("%s: --dry-run must be server or none (got %q)", verb, o.dryRun)
	}
	ms, err := kube.ReadManifests(o.files, o.recursive, a.env.Stdin)
	if err != nil {
		return nil, nil, err
	}
	kube.SortForCreate(ms)
	c, err := a.kubeClient()
	if err != nil {
		return nil, nil, err
	}
	ts, err := c.Plan(ctx, ms, o.ns, o.ns != "", verb == "apply")
	return c, ts, err
}

// apply creates or updates every object of the manifests, in dependency
// order, printing kind.group/name created|configured|unchanged.
func (a *app) apply(ctx context.Context, args []string) error {
	var o fileOpts
	fs := a.flagSet("apply")
	o.register(fs)
	pos, err := a.parse(fs, args, "apply -f FILE|DIR|- [-R] [-n NS] [--dry-run=server]")
	if err != nil {
		return err
	}
	if err := exactArgs("apply", pos, 0, "no arguments, only -f"); err != nil {
		return err
	}
	c, ts, err := a.readTargets(ctx, "apply", o)
	if err != nil {
		return err
	}
	var errs []error
	for _, t := range ts {
		what, err := c.Apply(ctx, t, o.dryRun == "server")
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", t.Ref(), err))
			continue
		}
		fmt.Fprintf(a.env.Stdout, "%s %s%s\n", t.Ref(), what, dryRunNote(o.dryRun))
	}
	return errors.Join(errs...)
}

func dryRunNote(d string) string {
	if d == "server" {
		return " (server dry run)"
	}
	return ""
}

// deleteFiles deletes the objects of the manifests, dependents first.
func (a *app) deleteFiles(ctx context.Context, args []string) error {
	var o fileOpts
	fs := a.flagSet("delete")
	o.register(fs)
	fs.BoolVar(&o.ignoreNotFound, "ignore-not-found", false, "an object already gone is no error")
	o.wait.register(fs)
	pos, err := a.parse(fs, args, "delete -f FILE|DIR|- [-R] [-n NS] [--dry-run=server] [--ignore-not-found] [--wait=false] [--timeout=D]")
	if err != nil {
		return err
	}
	if err := exactArgs("delete -f", pos, 0, "no arguments, only -f"); err != nil {
		return err
	}
	c, ts, err := a.readTargets(ctx, "delete", o)
	if err != nil {
		return err
	}
	slices.Reverse(ts)
	var errs []error
	var gs []gone
	for _, t := range ts {
		err := c.Delete(ctx, t.Resource, t.Namespace, t.Object.GetName(), o.dryRun == "server")
		switch {
		case kube.IsNotFound(err) && o.ignoreNotFound:
		case err != nil:
			errs = append(errs, err)
		default:
			fmt.Fprintf(a.env.Stdout, "%s deleted%s\n", t.Ref(), dryRunNote(o.dryRun))
			if o.dryRun != "server" {
				gs = append(gs, gone{t.Resource, t.Namespace, t.Object.GetName()})
			}
		}
	}
	return errors.Join(append(errs, waitGone(ctx, c, o.wait, gs))...)
}

// kubeDelete deletes objects named KIND NAME... or KIND/NAME...
func (a *app) kubeDelete(ctx context.Context, args []string) error {
	var o kubeOpts
	var ignore bool
	var w deleteWait
	fs := a.flagSet("delete")
	o.register(fs, false)
	fs.BoolVar(&ignore, "ignore-not-found", false, "an object already gone is no error")
	w.register(fs)
	pos, err := a.parse(fs, args, "delete KIND NAME... | KIND/NAME... [-n NS]")
	if err != nil {
		return err
	}
	c, err := a.kubeClient()
	if err != nil {
		return err
	}
	ts, err := a.kubeTargets(ctx, c, "delete", pos)
	if err != nil {
		return err
	}
	var errs []error
	var gs []gone
	for _, t := range ts {
		if t.name == "" {
			return usageError("delete %s: name the objects (or use -f)", t.res.Name)
		}
		ns, err := a.namespaceOf(ctx, c, t, o)
		if err == nil {
			err = c.Delete(ctx, t.res, ns, t.name, false)
		}
		switch {
		case kube.IsNotFound(err) && ignore:
		case err != nil:
			errs = append(errs, err)
		default:
			fmt.Fprintf(a.env.Stdout, "%s/%s deleted\n", t.res.GroupKind(), t.name)
			gs = append(gs, gone{t.res, ns, t.name})
		}
	}
	return errors.Join(append(errs, waitGone(ctx, c, w, gs))...)
}
