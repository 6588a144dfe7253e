package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/jsonmergepatch"
)

// LastApplied is kubectl's annotation holding the configuration last
// applied, from which apply computes what the user removed.
const LastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// ErrNamespace: a manifest's namespace is missing or contradicts -n.
var ErrNamespace = errors.New("namespace")

// Target is a manifest with its kind resolved and namespace settled.
type Target struct {
	Manifest
	Resource  Resource
	Namespace string // "" for cluster-scoped kinds
}

// Ref is kubectl's way of naming the object: kind.group/name.
func (t Target) Ref() string { return t.Resource.GroupKind() + "/" + t.Object.GetName() }

// Plan resolves the kinds of ms and their namespaces (a document's own,
// else ns, which must not contradict it) and checks that each namespace
// exists or is among ms (when checkNS: not for a delete): nothing is
// sent when any fails.
func (c *Client) Plan(ctx context.Context, ms []Manifest, ns string, nsGiven, checkNS bool) ([]Target, error) {
	var out []Target
	creating := map[string]bool{}
	for _, m := range ms {
		r, err := c.ResolveKind(ctx, m.Object.GetAPIVersion(), m.Object.GetKind())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Source, err)
		}
		t := Target{Manifest: m, Resource: r}
		if r.Kind == "Namespace" && r.Group == "" {
			creating[m.Object.GetName()] = true
		}
		if !r.Namespaced {
			m.Object.SetNamespace("") // as kubectl: a cluster-scoped object has none
		} else {
			t.Namespace = m.Object.GetNamespace()
			switch {
			case t.Namespace == "" && ns == "":
				return nil, fmt.Errorf("%s: %s %q has no metadata.%w: set it or pass -n", m.Source, r.Kind, m.Object.GetName(), ErrNamespace)
			case t.Namespace == "":
				t.Namespace = ns
			case nsGiven && t.Namespace != ns:
				return nil, fmt.Errorf("%s: the %w from the provided object %q does not match the namespace %q: pass -n %s",
					m.Source, ErrNamespace, t.Namespace, ns, t.Namespace)
			}
		}
		out = append(out, t)
	}
	if !checkNS {
		return out, nil
	}
	return out, c.checkNamespaces(ctx, out, creating)
}

// checkNamespaces fails when a target's namespace neither exists nor is
// created by the same manifests.
func (c *Client) checkNamespaces(ctx context.Context, ts []Target, creating map[string]bool) error {
	nsRes, err := c.ResolveKind(ctx, "v1", "Namespace")
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, t := range ts {
		if t.Namespace == "" || creating[t.Namespace] || seen[t.Namespace] {
			continue
		}
		seen[t.Namespace] = true
		if _, err := c.Get(ctx, nsRes, "", t.Namespace); err != nil {
			if IsNotFound(err) {
				return fmt.Errorf("%s: %w %q not found (create it, or add a Namespace document)", t.Source, ErrNamespace, t.Namespace)
			}
			return err
		}
	}
	return nil
}

// Apply creates t's object, or patches it as kubectl's client-side apply
// does (a three-way JSON merge patch from the last applied configuration,
// the new one and the live object), and says which: created,
// configured or unchanged.
func (c *Client) Apply(ctx context.Context, t Target, dryRun bool) (string, error) {
	modified, err := withLastApplied(t.Object)
	if err != nil {
		return "", fmt.Errorf("%s: %w", t.Source, err)
	}
	live, err := c.Get(ctx, t.Resource, t.Namespace, t.Object.GetName())
	if IsNotFound(err) {
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(modified); err != nil {
			return "", fmt.Errorf("%s: %w", t.Source, err)
		}
		if _, err := c.Create(ctx, t.Resource, t.Namespace, obj, dryRun); err != nil {
			return "", err
		}
		return "created", nil
	}
	if err != nil {
		return "", err
	}
	current, err := live.MarshalJSON()
	if err != nil {
		return "", err
	}
	original := []byte(live.GetAnnotations()[LastApplied])
	patch, err := jsonmergepatch.CreateThreeWayJSONMergePatch(original, modified, current)
	if err != nil {
		return "", fmt.Errorf("%s: computing the patch: %w", t.Source, err)
	}
	if string(patch) == "{}" {
		return "unchanged", nil
	}
	if _, err := c.MergePatch(ctx, t.Resource, t.Namespace, t.Object.GetName(), patch, dryRun); err != nil {
		return "", err
	}
	return "configured", nil
}

// withLastApplied is obj's JSON with the last-applied annotation set to
// obj itself (without that annotation, an empty annotations map kept), as
// kubectl makes it, so either tool's next apply sees no change.
func withLastApplied(obj *unstructured.Unstructured) ([]byte, error) {
	cp := obj.DeepCopy()
	ann := cp.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	delete(ann, LastApplied)
	cp.SetAnnotations(ann)
	orig, err := json.Marshal(cp.Object)
	if err != nil {
		return nil, err
	}
	ann[LastApplied] = string(orig) + "\n"
	cp.SetAnnotations(ann)
	return json.Marshal(cp.Object)
}
