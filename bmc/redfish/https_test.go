package redfish_test

import (
	"errors"
	"io"
	"log"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/bmc"
	"github.com/rackboot/rackboot/bmc/redfish"
)

// Every vendor's mockup served over HTTPS with a self-signed certificate:
// with verification on nothing reaches the BMC and the error says what to
// do, whole; with it off the machine boots the image from the virtual CD.
func TestVendorsOverHTTPS(t *testing.T) {
	for _, vendor := range vendors(t) {
		t.Run(vendor, func(t *testing.T) {
			m := newMockBMC(t, vendor)
			srv := httptest.NewUnstartedServer(m)
			srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes
			srv.StartTLS()
			t.Cleanup(srv.Close)
			a, err := bmc.ParseAddress("redfish-virtualmedia://" + strings.TrimPrefix(srv.URL, "https://") + systemPath(m))
			if err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()

			err = redfishNew(a, goodCreds).InsertMedia(ctx, isoURL)
			if !errors.Is(err, bmc.ErrUnreachable) ||
				!strings.HasSuffix(err.Error(), "turn verification off for it (spec.bmc.disableCertificateVerification: true)") {
				t.Errorf("verification on = %v, want ErrUnreachable ending with the whole hint", err)
			}
			if reqs := m.requests(); len(reqs) != 0 {
				t.Errorf("requests reached the BMC over an unverified connection: %q", reqs)
			}

			insecure := goodCreds
			insecure.InsecureSkipVerify = true
			d := redfish.New(a, insecure, bmc.Options{Backoff: time.Millisecond, PollInterval: time.Millisecond})
			must(t, d.PowerOff(ctx))
			must(t, d.InsertMedia(ctx, isoURL))
			must(t, d.SetBootOnce(ctx, bmc.BootCd, bmc.BootModeUEFI))
			must(t, d.PowerOn(ctx))
			if boots := m.Boots(); len(boots) != 1 || boots[0] != "cd "+isoURL {
				t.Errorf("verification off: the machine booted %q, want the CD with the image", boots)
			}
		})
	}
}
