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
