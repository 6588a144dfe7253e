package redfish

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"

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
// the request shapes tried) and checks that the BMC reports it inserted.
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
	cd, err := d.findCD(api, op, path)
	if err != nil {
		return err
	}
	if cd.Inserted && cd.Image == imageURL {
		return nil
	}
	if !cd.empty() {
		if err := d.eject(api, op, cd); err != nil {
			return err
		}
	}
	if !validLink(cd.Actions.Insert.Target) {
		// No InsertMedia action (older Lenovo XCC, iLO 4): PATCH the slot.
		return d.patchInsert(api, op, cd.ID, imageURL)
	}
	return d.postInsert(api, op, cd, imageURL, strings.ToUpper(u.Scheme))
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

func (d *Driver) postInsert(api *gofish.APIClient, op string, cd *mediaDoc, image, protocol string) error {
	var err error
	for i, shape := range insertShapes(image, protocol) {
		if i > 0 {
			d.opts.Logger.Debug("InsertMedia refused, trying another request shape",
				"host", d.addr.Host, "shape", i+1)
		}
		err = d.send(api, op, http.MethodPost, cd.Actions.Insert.Target, shape)
		if err == nil {
			return d.confirmInsert(api, op, cd.ID, image)
		}
		if !rejected(err) {
			return err
		}
	}
	return err
}

// confirmInsert reads the slot back; if the BMC took the image but left it
// not inserted (InsertMedia without Inserted, as Supermicro wants), Inserted
// and WriteProtected are set with a PATCH, as Lenovo needs.
func (d *Driver) confirmInsert(api *gofish.APIClient, op, path, image string) error {
	var cd mediaDoc
	if err := d.getJSON(api, op, path, &cd); err != nil {
		return err
	}
	if cd.Inserted && cd.Image == image {
		return nil
	}
	if err := d.send(api, op, http.MethodPatch, path,
		map[string]any{"Inserted": true, "WriteProtected": true}); err != nil {
		return err
	}
	return d.checkInserted(api, op, path, image)
}

func (d *Driver) patchInsert(api *gofish.APIClient, op, path, image string) error {
	err := d.send(api, op, http.MethodPatch, path,
		map[string]any{"Image": image, "Inserted": true, "WriteProtected": true})
	if err != nil {
		return err
	}
	return d.checkInserted(api, op, path, image)
}

func (d *Driver) checkInserted(api *gofish.APIClient, op, path, image string) error {
	var cd mediaDoc
	if err := d.getJSON(api, op, path, &cd); err != nil {
		return err
	}
	if !cd.Inserted || cd.Image != image {
		return d.failf(op, bmc.ErrBMC, "the BMC accepted the image but reports Inserted=%v Image=%q",
			cd.Inserted, cd.Image)
	}
	return nil
}

// EjectMedia empties the CD slot; it is a no-op if the slot is empty.
func (d *Driver) EjectMedia(ctx context.Context) error {
	const op = "eject virtual media"
	api, path, err := d.client(ctx, op)
	if err != nil {
		return err
	}
	cd, err := d.findCD(api, op, path)
	if err != nil {
		return err
	}
	if cd.empty() {
		return nil
	}
	return d.eject(api, op, cd)
}

// eject posts EjectMedia with an empty JSON object (iLO refuses an empty
// body; the others accept {}), or PATCHes the slot empty where there is no
// EjectMedia action.
func (d *Driver) eject(api *gofish.APIClient, op string, cd *mediaDoc) error {
	if validLink(cd.Actions.Eject.Target) {
		return d.send(api, op, http.MethodPost, cd.Actions.Eject.Target, map[string]any{})
	}
	return d.send(api, op, http.MethodPatch, cd.ID, map[string]any{"Image": nil, "Inserted": false})
}

// findCD returns the first virtual media slot that takes a CD or DVD, under
// the System (newer iDRAC, DMTF 2021+) or else under the System's first
// Manager (older iDRAC, iLO, Supermicro, Lenovo).
func (d *Driver) findCD(api *gofish.APIClient, op, systemPath string) (*mediaDoc, error) {
	sys, err := d.getSystem(api, op, systemPath)
	if err != nil {
		return nil, err
	}
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
		if !validLink(m) {
			continue
		}
		var vm mediaDoc
		if err := d.getJSON(api, op, m, &vm); err != nil {
			return nil, err
		}
		if slices.Contains(vm.MediaTypes, "CD") || slices.Contains(vm.MediaTypes, "DVD") {
			vm.ID = m
			return &vm, nil
		}
	}
	return nil, d.failf(op, bmc.ErrUnsupported, "no virtual CD/DVD slot")
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
