package e2e

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/testbed/e2e/installbed"
)

// TestInstallRefusedWhenNotReady: through the real daemon, installing a
// cluster that is not ready (no hosts yet) is refused: rackbootctl exits 1
// and lists the failing validations the server's 409 names, and nothing
// changed — the cluster's document, its status and install clock, and no
// installation event. No VM is needed.
func TestInstallRefusedWhenNotReady(t *testing.T) {
	bed := newInstallBed(t, nil, installbed.GeneratorUserConfigs)
	ctx := t.Context()
	id, err := bed.CreateCluster(ctx, "early", false)
	if err != nil {
		t.Fatal(err)
	}
	before := bedCtl(t, bed, "get", "clusters", id, "-o", "json")
	events := bedCtl(t, bed, "get", "events", "--cluster", id)

	out, err := bed.Ctl(ctx, "install", "early")
	if err == nil || out != "" {
		t.Fatalf("install of a cluster without hosts: %q, %v; want exit 1 and no output", out, err)
	}
	for _, re := range []string{`exit status 1`, `error: cluster early \(` + id + `\) is insufficient, not ready to install \(HTTP 409\); failing validations:`,
		`\nOBJECT +ID +STATUS +MESSAGE\n`, `\ncluster +sufficient-masters-count +failure +The cluster must have exactly 3 dedicated control plane nodes`} {
		if !regexp.MustCompile(re).MatchString(err.Error()) {
			t.Errorf("rackbootctl install does not say %q:\n%v", re, err)
		}
	}
	if after := bedCtl(t, bed, "get", "clusters", id, "-o", "json"); after != before {
		t.Errorf("the refused install changed the cluster:\n%s\nwas:\n%s", after, before)
	}
	if after := bedCtl(t, bed, "get", "events", "--cluster", id); after != events {
		t.Errorf("the refused install left events:\n%s\nwas:\n%s", after, events)
	}
	c, err := bedAPI(t, bed).GetCluster(ctx, id)
	if err != nil || c.Status != "insufficient" || !c.InstallStartedAt.IsZero() {
		t.Errorf("cluster after the refusal: %+v, %v", c, err)
	}
	_, err = bedAPI(t, bed).InstallCluster(ctx, id)
	var ae *client.APIError
	if !strings.Contains(err.Error(), "409") || !errors.As(err, &ae) || len(ae.Validations) == 0 {
		t.Errorf("the API's 409 carries no validations: %v", err)
	}
}
