package kube

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ErrUnknownKind: a resource type or kind the server does not serve.
var ErrUnknownKind = errors.New("unknown resource")

// Resource is one kind the server serves (from discovery).
type Resource struct {
	Group, Version, Kind string
	Name, Singular       string // plural and singular resource names
	ShortNames           []string
	Namespaced           bool
}

// APIVersion is "group/version", or "version" for the core group.
func (r Resource) APIVersion() string {
	if r.Group == "" {
		return r.Version
	}
	return r.Group + "/" + r.Version
}

// GroupResource is "plural.group" as Kubernetes names it in messages.
func (r Resource) GroupResource() string {
	if r.Group == "" {
		return r.Name
	}
	return r.Name + "." + r.Group
}

// GroupKind is "kind.group" lower-cased, as kubectl prints objects
// (infraenv.agent-install.openshift.io/x).
func (r Resource) GroupKind() string {
	k := strings.ToLower(r.Kind)
	if r.Group == "" {
		return k
	}
	return k + "." + r.Group
}

// Path is the URL path of the collection (name "") or of one object; ns
// is ignored for cluster-scoped kinds, and "" lists every namespace.
func (r Resource) Path(ns, name string) string {
	p := "/apis/" + r.Group + "/" + r.Version
	if r.Group == "" {
		p = "/api/" + r.Version
	}
	if r.Namespaced && ns != "" {
		p += "/namespaces/" + url.PathEscape(ns)
	}
	p += "/" + r.Name
	if name != "" {
		p += "/" + url.PathEscape(name)
	}
	return p
}

// Resources is the server's kinds (discovered once).
func (c *Client) Resources(ctx context.Context) ([]Resource, error) {
	if c.res != nil {
		return c.res, nil
	}
	gvs := []string{"/api/v1"}
	var groups metav1.APIGroupList
	if err := c.do(ctx, request{method: "GET", path: "/apis"}, &groups); err != nil {
		var se *StatusError
		if errors.As(err, &se) && se.Status.Code == 404 {
			c.res = []Resource{} // a server without the Kubernetes-compatible API
			return c.res, nil
		}
		return nil, fmt.Errorf("discovery: %w", err)
	}
	for _, g := range groups.Groups {
		gvs = append(gvs, "/apis/"+g.PreferredVersion.GroupVersion)
	}
	var out []Resource
	for _, p := range gvs {
		var l metav1.APIResourceList
		if err := c.do(ctx, request{method: "GET", path: p}, &l); err != nil {
			return nil, fmt.Errorf("discovery: %w", err)
		}
		group, version, ok := strings.Cut(l.GroupVersion, "/")
		if !ok {
			group, version = "", l.GroupVersion
		}
		for _, ar := range l.APIResources {
			if strings.Contains(ar.Name, "/") {
				continue // a subresource
			}
			out = append(out, Resource{Group: group, Version: version, Kind: ar.Kind, Name: ar.Name,
				Singular: ar.SingularName, ShortNames: ar.ShortNames, Namespaced: ar.Namespaced})
		}
	}
	c.res = out
	return out, nil
}

// Resolve finds the kind a user typed: its plural, singular, kind or a
// short name, each optionally followed by ".group" (agents,
// agent.agent-install.openshift.io, aci, InfraEnv).
func (c *Client) Resolve(ctx context.Context, typed string) (Resource, error) {
	rs, err := c.Resources(ctx)
	if err != nil {
		return Resource{}, err
	}
	if r, ok := resolve(rs, typed); ok {
		return r, nil
	}
	return Resource{}, fmt.Errorf("%w %q (the server's kinds: %s)", ErrUnknownKind, typed, names(rs))
}

// ResolveKind finds the kind of a manifest's apiVersion and kind.
func (c *Client) ResolveKind(ctx context.Context, apiVersion, kind string) (Resource, error) {
	rs, err := c.Resources(ctx)
	if err != nil {
		return Resource{}, err
	}
	for _, r := range rs {
		if r.APIVersion() == apiVersion && r.Kind == kind {
			return r, nil
		}
	}
	return Resource{}, fmt.Errorf("%w: kind %q of %q is not served (the server's kinds: %s)", ErrUnknownKind, kind, apiVersion, names(rs))
}

func resolve(rs []Resource, typed string) (Resource, bool) {
	t := strings.ToLower(typed)
	for _, withGroup := range []bool{false, true} {
		for _, r := range rs {
			name, group := t, ""
			if withGroup {
				var ok bool
				if name, group, ok = strings.Cut(t, "."); !ok || group != r.Group {
					continue
				}
			}
			if name == r.Name || name == r.Singular || name == strings.ToLower(r.Kind) {
				return r, true
			}
			for _, s := range r.ShortNames {
				if name == s {
					return r, true
				}
			}
		}
	}
	return Resource{}, false
}

// names lists the plural names of rs, sorted.
func names(rs []Resource) string {
	var ns []string
	for _, r := range rs {
		ns = append(ns, r.Name)
	}
	sort.Strings(ns)
	return strings.Join(ns, ", ")
}
