package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/rackboot/rackboot/engine/console"
)

// rackStatusTimeout bounds asking the rack's members for the overview.
const rackStatusTimeout = 3 * time.Second

// mountConsole adds the web console (engine/console) under /console/. It
// reads and changes everything through the guarded API handler, with the
// admin token, in process; sign-in follows the API's admin_remote rule.
func (d *daemon) mountConsole(mux *http.ServeMux) error {
	c, err := console.New(console.Options{
		API: d.api, AdminToken: d.apiOpts.AdminToken, Store: d.store,
		LoopbackOnly: !d.cfg.API.AdminRemote,
		Rack:         d.rackStatus,
		Log:          d.log.With("service", "console"),
	})
	if err != nil {
		return fmt.Errorf("console: %w", err)
	}
	mux.Handle(console.Prefix, c)
	mux.Handle("GET /console", c)
	return nil
}

// rackStatus is the rack as the console's overview shows it.
func (d *daemon) rackStatus(ctx context.Context) console.Rack {
	var r console.Rack
	if cl := d.cfg.Cluster; cl != nil && cl.VIP.IsValid() {
		r.ServiceAddress = cl.VIP.Addr().String()
	}
	if d.lastReloadFailed.Load() {
		r.Problems = append(r.Problems, "The last configuration reload failed; the previous configuration is still in use (see the journal).")
	}
	ctx, cancel := context.WithTimeout(ctx, rackStatusTimeout)
	defer cancel()
	st, err := d.store.Status(ctx)
	if err != nil {
		r.Health = "unknown: " + err.Error()
		return r
	}
	r.Health = "ok"
	if st.Leader == "" {
		r.Health = "no leader"
	}
	for _, m := range st.Members {
		r.Members = append(r.Members, console.Member{Name: m.ID, Address: m.Address, Leader: m.ID == st.Leader, Voter: m.Voter})
		if m.Error != "" {
			r.Problems = append(r.Problems, fmt.Sprintf("Appliance %s: %s", m.ID, m.Error))
			r.Health = "degraded"
		} else if m.Lag > 0 {
			r.Health = fmt.Sprintf("ok (%s is %d entries behind)", m.ID, m.Lag)
		}
	}
	return r
}
