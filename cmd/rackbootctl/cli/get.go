package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/cmd/rackbootctl/output"
)

// ErrNoHost: a host name matches no host, or several.
var ErrNoHost = errors.New("host not found")

// getOpts are the flags of get.
type getOpts struct {
	format            string
	watch             bool
	interval          time.Duration
	infraEnv, cluster string
	host              string
	watchEvents       bool
}

// fetched is what one poll of a get found: the objects (for json/yaml),
// their table, and the objects one by one (parallel to tab.Keys).
type fetched struct {
	objs  any
	tab   output.Table
	items []any
}

func (a *app) get(ctx context.Context, args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "install-config":
			return a.getInstallConfig(ctx, args[1:])
		case "manifest", "manifests":
			return a.getManifests(ctx, args[1:])
		}
	}
	res, args, err := splitResource("get", args, resCluster, resInfraEnv, resHost, resEvent)
	if err != nil {
		return err
	}
	var o getOpts
	fs := a.flagSet("get " + res)
	help := "output `format`: table, wide, json or yaml (default table)"
	if res == resHost {
		help = "output `format`: table, wide, json, yaml or progress (default table; progress for -w on a terminal)"
	}
	fs.StringVar(&o.format, "o", "", help)
	fs.BoolVar(&o.watch, "w", false, "watch: print objects again when they change (Ctrl-C stops)")
	fs.BoolVar(&o.watchEvents, "output-watch-events", false, "with -w -o json|yaml: print {type, object} per change")
	fs.DurationVar(&o.interval, "interval", 2*time.Second, "how often -w polls (hosts: re-lists infra-envs, or polls a server without the watch stream)")
	if res == resHost || res == resEvent {
		fs.StringVar(&o.infraEnv, "infra-env", "", "only this infra-env's "+res+"s")
		fs.StringVar(&o.cluster, "cluster", "", "only this cluster's "+res+"s")
	}
	if res == resEvent {
		fs.StringVar(&o.host, "host", "", "only this host's events")
	}
	pos, err := a.parse(fs, args, "get "+res+"s [ID] [flags]")
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageError("get %ss takes at most one ID", res)
	}
	id := ""
	if len(pos) == 1 {
		id = pos[0]
	}
	tmpl, isJSONPath := strings.CutPrefix(o.format, "jsonpath=")
	isName := o.format == "name"
	if isJSONPath || isName {
		if o.watch || (isJSONPath && tmpl == "") || (isName && res == resEvent) {
			return usageError("-o name (not of events) and -o jsonpath=TEMPLATE print once (no -w), and jsonpath needs a template")
		}
		o.format = string(output.FormatJSON)
	}
	f, err := a.getFormat(res, o)
	if err != nil {
		return err
	}
	if o.watch && o.interval < 100*time.Millisecond {
		return usageError("--interval must be at least 100ms")
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	if err := a.resolveFilters(ctx, c, &o); err != nil {
		return err
	}
	if id, err = a.idOf(ctx, c, res, id); err != nil {
		return err
	}
	fetch := func(ctx context.Context) (fetched, error) { return a.fetch(ctx, c, res, id, o, f) }
	if o.watch {
		return a.watch(ctx, c, res, id, o, f, fetch)
	}
	got, err := fetch(ctx)
	if err != nil {
		return err
	}
	switch {
	case isName:
		for _, k := range got.tab.Keys {
			fmt.Fprintf(a.env.Stdout, "%s/%s\n", res, k)
		}
		return nil
	case isJSONPath:
		return writeJSONPath(a.env.Stdout, tmpl, got.objs)
	}
	if f.Tabular() && len(got.tab.Rows) == 0 {
		_, err := a.env.Stderr.Write([]byte("No " + res + "s found.\n"))
		return err
	}
	return output.Write(a.env.Stdout, f, got.objs, got.tab)
}

// getFormat is -o of get: progress only for hosts, and the default of
// get hosts -w on a terminal.
func (a *app) getFormat(res string, o getOpts) (output.Format, error) {
	f, err := output.ParseFormat(o.format)
	if err != nil {
		return "", usageError("%v", err)
	}
	if f == output.FormatProgress && res != resHost {
		return "", usageError("-o progress shows hosts only")
	}
	if o.format == "" && res == resHost && o.watch && isTerminal(a.env.Stdout) {
		f = output.FormatProgress
	}
	return f, nil
}

// hostTable is the table of hosts in format f.
func hostTable(hs []*client.Host, f output.Format) output.Table {
	if f == output.FormatProgress {
		return output.Progress(hs)
	}
	return output.Hosts(hs, f == output.FormatWide)
}

// fetch reads the objects of one get.
func (a *app) fetch(ctx context.Context, c *client.Client, res, id string, o getOpts, f output.Format) (fetched, error) {
	wide, now := f == output.FormatWide, a.env.Now()
	switch res {
	case resCluster:
		cs, err := listOrOne(ctx, id, c.ListClusters, c.GetCluster)
		return fetched{one(cs, id), output.Clusters(cs, wide, now), items(cs)}, err
	case resInfraEnv:
		es, err := listOrOne(ctx, id, c.ListInfraEnvs, c.GetInfraEnv)
		return fetched{one(es, id), output.InfraEnvs(es, wide, now), items(es)}, err
	case resHost:
		hs, err := a.hosts(ctx, c, id, o)
		return fetched{one(hs, id), hostTable(hs, f), items(hs)}, err
	}
	es, err := c.ListEvents(ctx, client.EventFilter{ClusterID: o.cluster, InfraEnvID: o.infraEnv, HostID: o.host})
	es = eventsAbout(es, id)
	return fetched{es, output.Events(es), items(es)}, err
}

// items is vs as []any.
func items[T any](vs []*T) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

// listOrOne lists, or gets the one object id names.
func listOrOne[T any](ctx context.Context, id string, list func(context.Context) ([]*T, error),
	get func(context.Context, string) (*T, error)) ([]*T, error) {
	if id == "" {
		return list(ctx)
	}
	v, err := get(ctx, id)
	if err != nil {
		return nil, err
	}
	return []*T{v}, nil
}

// one is the single object of a get by id, else the list.
func one[T any](vs []*T, id string) any {
	if id != "" && len(vs) == 1 {
		return vs[0]
	}
	if vs == nil {
		return []*T{}
	}
	return vs
}

// hosts lists the hosts a get selects.
func (a *app) hosts(ctx context.Context, c *client.Client, id string, o getOpts) ([]*client.Host, error) {
	if id != "" {
		h, err := a.findHost(ctx, c, id, o.infraEnv)
		if err != nil {
			return nil, err
		}
		return []*client.Host{h}, nil
	}
	var hs []*client.Host
	var err error
	if o.infraEnv != "" {
		hs, err = c.ListHosts(ctx, o.infraEnv)
	} else {
		hs, err = c.ListAllHosts(ctx)
	}
	if err != nil || o.cluster == "" {
		return hs, err
	}
	var out []*client.Host
	for _, h := range hs {
		if h.ClusterID == o.cluster {
			out = append(out, h)
		}
	}
	return out, nil
}

// findHost gets host id from infraEnv, or searches every infra-env.
// A name that is not 8-4-4-4-12 hex is looked up as a hostname (the
// requested one, else the inventory's), which must name one host.
func (a *app) findHost(ctx context.Context, c *client.Client, id, infraEnv string) (*client.Host, error) {
	if !looksLikeID(id) {
		return a.hostByName(ctx, c, id, infraEnv)
	}
	if infraEnv != "" {
		return c.GetHost(ctx, infraEnv, id)
	}
	return c.FindHost(ctx, id)
}

// hostByName finds the one host called name.
func (a *app) hostByName(ctx context.Context, c *client.Client, name, infraEnv string) (*client.Host, error) {
	hs, err := a.hosts(ctx, c, "", getOpts{infraEnv: infraEnv})
	if err != nil {
		return nil, err
	}
	var found []*client.Host
	for _, h := range hs {
		if output.Hostname(h) == name {
			found = append(found, h)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return nil, fmt.Errorf("%w: no host has the ID or hostname %q", ErrNoHost, name)
	}
	ids := make([]string, len(found))
	for i, h := range found {
		ids[i] = h.ID
	}
	return nil, fmt.Errorf("%w: %d hosts are called %q (%s): use the ID", ErrNoHost, len(found), name, strings.Join(ids, ", "))
}

// looksLikeID reports whether s has the 8-4-4-4-12 shape of a host ID.
func looksLikeID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, r := range s {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if r != '-' {
				return false
			}
		case !strings.ContainsRune("0123456789abcdefABCDEF", r):
			return false
		}
	}
	return true
}

// eventsAbout keeps the events of object id (any kind); "" keeps all.
func eventsAbout(es []*client.Event, id string) []*client.Event {
	if id == "" {
		return es
	}
	var out []*client.Event
	for _, e := range es {
		if e.HostID == id || e.ClusterID == id || e.InfraEnvID == id {
			out = append(out, e)
		}
	}
	return out
}

// writeJSONPath prints objs (one object, or a list made a kind List with
// items, as kubectl's) through a jsonpath template.
func writeJSONPath(w io.Writer, tmpl string, objs any) error {
	b, err := json.Marshal(objs)
	if err != nil {
		return fmt.Errorf("encoding JSON: %w", err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("encoding JSON: %w", err)
	}
	if l, ok := v.([]any); ok {
		v = map[string]any{"kind": "List", "items": l}
	}
	return output.WriteJSONPath(w, tmpl, v)
}
