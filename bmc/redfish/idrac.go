package redfish

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/stmcginnis/gofish"
	"github.com/stmcginnis/gofish/schemas"

	"github.com/rackboot/rackboot/bmc"
)

// errNoOEM: the BMC does not offer the vendor's method; use the standard one.
var errNoOEM = errors.New("vendor method not offered")

// idracVirtualCDOnce is the Server Configuration Profile that makes an
// iDRAC boot its virtual CD at the next boot only (the attributes
// sushy-oem-idrac sets for set_virtual_boot_device).
const idracVirtualCDOnce = `<SystemConfiguration><Component FQDD="iDRAC.Embedded.1">` +
	`<Attribute Name="ServerBoot.1#BootOnce">Enabled</Attribute>` +
	`<Attribute Name="ServerBoot.1#FirstBootDevice">VCD-DVD</Attribute>` +
	`</Component></SystemConfiguration>`

// idracBootVirtualCD posts the profile to the manager's
// ImportSystemConfiguration action and waits for the job it starts.
func (d *Driver) idracBootVirtualCD(ctx context.Context, api *gofish.APIClient, op string, sys *systemDoc) error {
	if len(sys.Links.ManagedBy) == 0 || !validLink(sys.Links.ManagedBy[0].ID) {
		return errNoOEM
	}
	var mgr struct {
		Actions struct {
			Oem map[string]struct {
				Target string `json:"target"`
			} `json:"Oem"`
		} `json:"Actions"`
	}
	if err := d.getJSON(api, op, sys.Links.ManagedBy[0].ID, &mgr); err != nil {
		return err
	}
	target := ""
	for name, a := range mgr.Actions.Oem {
		if strings.HasSuffix(name, ".ImportSystemConfiguration") && validLink(a.Target) {
			target = a.Target
		}
	}
	if target == "" {
		return errNoOEM
	}
	resp, err := api.Post(target, map[string]any{
		"ShareParameters": map[string]any{"Target": "ALL"},
		"ImportBuffer":    idracVirtualCDOnce,
	})
	if err != nil {
		return d.fail(op, err)
	}
	job := resp.Header.Get("Location")
	schemas.DeferredCleanupHTTPResponse(resp)
	if job == "" {
		return nil
	}
	return d.awaitJob(ctx, api, op, job)
}

// awaitJob polls an iDRAC job until it is completed, failed, or the media
// deadline passed.
func (d *Driver) awaitJob(ctx context.Context, api *gofish.APIClient, op, job string) error {
	if i := strings.Index(job, "/redfish/v1/"); i > 0 {
		job = job[i:] // an absolute URL: keep the path
	}
	if !validLink(job) {
		return d.failf(op, bmc.ErrBMC, "the BMC named a job outside its Redfish tree")
	}
	deadline := time.Now().Add(d.opts.MediaTimeout)
	for {
		var j struct {
			JobState string `json:"JobState"`
			Message  string `json:"Message"`
		}
		if err := d.getJSON(api, op, job, &j); err != nil {
			return err
		}
		switch j.JobState {
		case "Completed":
			return nil
		case "Failed", "CompletedWithErrors", "Cancelled", "Canceled":
			return d.failf(op, bmc.ErrBMC, "job %s %s: %s", job, j.JobState, j.Message)
		}
		if time.Now().After(deadline) {
			return d.failf(op, bmc.ErrBMC, "job %s still %s after %s", job, j.JobState, d.opts.MediaTimeout)
		}
		if err := sleep(ctx, d.opts.PollInterval); err != nil {
			return d.fail(op, err)
		}
	}
}
