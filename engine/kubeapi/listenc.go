package kubeapi

import (
	"bytes"
	"encoding/json"
	"net/http"
)

// writeList writes a JSON list: each item encoded from its stored body
// with only its metadata decoded (renderRaw), then the list written item
// by item. A list used to decode every object whole into maps and hold
// them all, with the encoder's copy of the whole list, until the last
// was written: an unpaged list of 10,000 Agents held several hundred MiB.
func (h *Handler) writeList(w http.ResponseWriter, res *Resource, page listed) error {
	items := make([][]byte, len(page.objs))
	for i, o := range page.objs {
		v, err := h.renderRaw(res, o)
		if err != nil {
			return err
		}
		if items[i], err = json.Marshal(v); err != nil {
			return err
		}
	}
	head, err := json.Marshal(map[string]any{
		"apiVersion": res.GroupVersion(), "kind": res.Kind + "List", "metadata": page.listMeta(),
	})
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	var b bytes.Buffer
	b.Write(head[:len(head)-1])
	b.WriteString(`,"items":[`)
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(it)
		if b.Len() >= 64<<10 {
			if _, err := w.Write(b.Bytes()); err != nil {
				return nil // the client went away
			}
			b.Reset()
		}
	}
	b.WriteString("]}\n")
	_, _ = w.Write(b.Bytes())
	return nil
}
