package acm

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/rackboot/rackboot/engine"
)

// putBody stores obj with body as its new body, at the revision it was
// read at. An object changed or deleted meanwhile is left alone (nil): the
// controller's next pass sees it as it is now.
//
// A status written is the controller's view of the spec it read: its
// observedGeneration is obj's generation (kinds with generations).
func putBody(ctx context.Context, o Options, obj engine.Object, body map[string]any) error {
	if st, ok := body["status"].(map[string]any); ok && obj.Generation > 0 {
		st["observedGeneration"] = obj.Generation
	}
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	obj.Body = b
	_, err = o.Store.Apply(ctx, &engine.PutObject{Object: obj, IfRevision: obj.Revision})
	if errors.Is(err, engine.ErrConflict) || errors.Is(err, engine.ErrNotFound) {
		return nil
	}
	return err
}

// annotations is body's metadata.annotations, made (and put in place)
// when it has none.
func annotations(body map[string]any) map[string]any {
	md, _ := body["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		body["metadata"] = md
	}
	ann, _ := md["annotations"].(map[string]any)
	if ann == nil {
		ann = map[string]any{}
		md["annotations"] = ann
	}
	return ann
}

// putAnnotation stores obj with its annotation key set to value, or
// removed when value is "" (as putBody: left alone if changed meanwhile).
func putAnnotation(ctx context.Context, o Options, obj engine.Object, key, value string) error {
	var body map[string]any
	if err := json.Unmarshal(obj.Body, &body); err != nil {
		return err
	}
	ann := annotations(body)
	if value == "" {
		delete(ann, key)
	} else {
		ann[key] = value
	}
	return putBody(ctx, o, obj, body)
}
