package redfish

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/stmcginnis/gofish"

	"github.com/rackboot/rackboot/bmc"
)

// mediaDoc is the part of a VirtualMedia resource the driver acts on.
type mediaDoc struct {
	ID         string   `json:"@odata.id"`
	MediaTypes []string `json:"MediaTypes"`
	Image      string   `json:"Image"`
	Inserted   bool     `json:"Inserted"`
	Actions    struct {
		Insert struct {
			Target string `json:"target"`
		} `json:"#VirtualMedia.InsertMedia"`
		Eject struct {
			Target string `json:"target"`
		} `json:"#VirtualMedia.EjectMedia"`
	} `json:"Actions"`
}

// empty reports whether nothing is mounted.
func (m *mediaDoc) empty() bool { return !m.Inserted && m.Image == "" }

// InsertMedia mounts imageURL in the CD slot (see the package comment for
// the request shapes tried), accepts the BMC's 2xx and then polls the slot
// until it shows the image inserted, for at most Options.MediaTimeout.
func (d *Driver) InsertMedia(ctx context.Context, imageURL string) error {
	const op = "insert virtual media"
	u, err := url.Parse(imageURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return d.failf(op, bmc.ErrUnsupported, "image URL must be http or https")
	}
	api, path, err := d.client(ctx, op)
	if err != nil {
		return err
	}
	sys, err := d.getSystem(api, op, path)
	if err != nil {
		return err
	}
	v := d.vendorFor(sys)
	cd, err := d.findCD(api, op, sys, v)
	if err != nil {
		return err
	}
	if cd.Inserted && cd.Image == imageURL {
		return nil
	}
	if !cd.empty() {
		if err := d.eject(ctx, api, op, cd); err != nil {
			return err
		}
	}
	if !validLink(cd.Actions.Insert.Target) {
		// No InsertMedia action (older Lenovo XCC, iLO 4): PATCH the slot.
		if err := d.send(api, op, http.MethodPatch, cd.ID,
			v.withExtra(map[string]any{"Image": imageURL, "Inserted": true, "WriteProtected": true})); err != nil {
			return err
		}
		return d.awaitInserted(ctx, api, op, cd.ID, imageURL, v)
	}
	return d.postInsert(ctx, api, op, cd, imageURL, strings.ToUpper(u.Scheme), v)
}

// insertShapes are the InsertMedia bodies tried in order; the next one is
// tried only when the BMC refuses the previous one with 400/422.
func insertShapes(image, protocol string) []map[string]any {
	return []map[string]any{
		{"Image": image, "Inserted": true, "WriteProtected": true},
		{"Image": image},
		{"Image": image, "TransferProtocolType": protocol},
		{"Image": image, "TransferProtocolType": protocol, "TransferMethod": "Stream"},
	}
}

func (d *Driver) postInsert(ctx context.Context, api *gofish.APIClient, op string, cd *mediaDoc, image, protocol string, v vendor) error {
	var err error
	for i, shape := range insertShapes(image, protocol) {
		if i > 0 {
			d.opts.Logger.Debug("InsertMedia refused, trying another request shape",
				"host", d.addr.Host, "shape", i+1)
		}
		err = d.send(api, op, http.MethodPost, cd.Actions.Insert.Target, v.withExtra(shape))
		if err == nil {
			return d.awaitInserted(ctx, api, op, cd.ID, image, v)
		}
		if !rejected(err) {
			return err
		}
	}
	return err
}

// awaitInserted polls the slot until it shows the image inserted. A slot
// that shows the image but not Inserted (InsertMedia without Inserted, as
// Supermicro wants) gets Inserted and WriteProtected with one PATCH, as
// Lenovo needs, unless the vendor's slots are read only (iDRAC). A slot
// that does not show it by the deadline is an error naming the slot and
// what it reported.
func (d *Driver) awaitInserted(ctx context.Context, api *gofish.APIClient, op, slot, image string, v vendor) error {
	deadline := time.Now().Add(d.opts.MediaTimeout)
	patched := v.noSlotPatch
	for {
		var cd mediaDoc
		if err := d.getJSON(api, op, slot, &cd); err != nil {
			return err
		}
		switch {
		case cd.Inserted && cd.Image == image:
			return nil
		case cd.Image == image && !patched:
			patched = true
			if err := d.send(api, op, http.MethodPatch, slot,
				map[string]any{"Inserted": true, "WriteProtected": true}); err != nil {
				return err
			}
			continue
		case time.Now().After(deadline):
			return d.failf(op, bmc.ErrBMC, "the BMC accepted the image but its slot %s still reports Inserted=%v Image=%q after %s",
				slot, cd.Inserted, redactURL(cd.Image, image), d.opts.MediaTimeout)
		}
		if err := sleep(ctx, d.opts.PollInterval); err != nil {
			return d.fail(op, err)
		}
	}
}

// redactURL hides the image URL (it holds a path token) when the slot
// shows it; any other image is shown as the BMC reported it.
func redactURL(got, image string) string {
	if got == image {
		return "(the image)"
	}
	return got
}

// EjectMedia empties the CD slot; it is a no-op if the slot is empty.
func (d *Driver) EjectMedia(ctx context.Context) error {
	const op = "eject virtual media"
	api, path, err := d.client(ctx, op)
	if err != nil {
		return err
	}
	sys, err := d.getSystem(api, op, path)
	if err != nil {
		return err
	}
	cd, err := d.findCD(api, op, sys, d.vendorFor(sys))
	if err != nil {
		return err
	}
	if cd.empty() {
		return nil
	}
	return d.eject(ctx, api, op, cd)
}

// eject posts EjectMedia with an empty JSON object (iLO refuses an empty
// body; the others accept {}), or PATCHes the slot empty where there is no
// EjectMedia action; then it polls the slot until it shows empty, for at
// most Options.MediaTimeout (Lenovo shows the PATCH a little later).
func (d *Driver) eject(ctx context.Context, api *gofish.APIClient, op string, cd *mediaDoc) error {
	var err error
	if validLink(cd.Actions.Eject.Target) {
		err = d.send(api, op, http.MethodPost, cd.Actions.Eject.Target, map[string]any{})
	} else {
		err = d.send(api, op, http.MethodPatch, cd.ID, map[string]any{"Image": nil, "Inserted": false})
	}
	if err != nil {
		return err
	}
	deadline := time.Now().Add(d.opts.MediaTimeout)
	for {
		var now mediaDoc
		if err := d.getJSON(api, op, cd.ID, &now); err != nil {
			return err
		}
		if now.empty() {
			return nil
		}
		if time.Now().After(deadline) {
			return d.failf(op, bmc.ErrBMC, "the BMC accepted the eject but its slot %s still reports Inserted=%v after %s",
				cd.ID, now.Inserted, d.opts.MediaTimeout)
		}
		if err := sleep(ctx, d.opts.PollInterval); err != nil {
			return d.fail(op, err)
		}
	}
}

// findCD returns the first virtual media slot that takes a CD or DVD, under
// the System (newer iDRAC, DMTF 2021+) or else under the System's first
// Manager (older iDRAC, iLO, Supermicro, Lenovo); where the collection
// lists none, the vendor's well-known slot ids are tried (Supermicro).
func (d *Driver) findCD(api *gofish.APIClient, op string, sys *systemDoc, v vendor) (*mediaDoc, error) {
	var err error
	collection := sys.VirtualMedia.ID
	if !validLink(collection) {
		collection, err = d.managerMedia(api, op, sys)
		if err != nil {
			return nil, err
		}
	}
	members, err := d.members(api, op, collection)
	if err != nil {
		return nil, err
	}
	for _, m := range members {
		if cd, err := d.cdSlot(api, op, m); cd != nil || err != nil {
			return cd, err
		}
	}
	for _, id := range v.slotGuesses {
		cd, err := d.cdSlot(api, op, strings.TrimSuffix(collection, "/")+"/"+id)
		if errors.Is(err, bmc.ErrUnsupported) {
			continue // not there (404)
		}
		if cd != nil || err != nil {
			return cd, err
		}
	}
	return nil, d.failf(op, bmc.ErrUnsupported, "no virtual CD/DVD slot in %s", collection)
}

// cdSlot reads the slot at path; nil if it takes no CD or DVD.
func (d *Driver) cdSlot(api *gofish.APIClient, op, path string) (*mediaDoc, error) {
	if !validLink(path) {
		return nil, nil
	}
	var vm mediaDoc
	if err := d.getJSON(api, op, path, &vm); err != nil {
		return nil, err
	}
	if slices.Contains(vm.MediaTypes, "CD") || slices.Contains(vm.MediaTypes, "DVD") {
		vm.ID = path
		return &vm, nil
	}
	return nil, nil
}

func (d *Driver) managerMedia(api *gofish.APIClient, op string, sys *systemDoc) (string, error) {
	if len(sys.Links.ManagedBy) == 0 || !validLink(sys.Links.ManagedBy[0].ID) {
		return "", d.failf(op, bmc.ErrUnsupported, "no virtual media: the system has none and names no manager")
	}
	var mgr struct {
		VirtualMedia odataRef `json:"VirtualMedia"`
	}
	if err := d.getJSON(api, op, sys.Links.ManagedBy[0].ID, &mgr); err != nil {
		return "", err
	}
	if !validLink(mgr.VirtualMedia.ID) {
		return "", d.failf(op, bmc.ErrUnsupported, "no virtual media under the system or its manager")
	}
	return mgr.VirtualMedia.ID, nil
}
