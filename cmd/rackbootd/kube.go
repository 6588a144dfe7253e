package main

import (
	"context"
	"fmt"
	"net/http"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/acm"
	"github.com/rackboot/rackboot/engine/clusters"
	"github.com/rackboot/rackboot/engine/kubeapi"
	"github.com/rackboot/rackboot/engine/kubegc"
)

// newKube builds the Kubernetes-compatible API (engine/kubeapi) over the
// store, with the admin token and the secrets sealer. It runs in
// newEngine, after newBMH made the sealer.
func (d *daemon) newKube() error {
	h, err := kubeapi.New(kubeapi.Options{
		Store: d.store, AdminToken: d.apiOpts.AdminToken, Keys: d.apiOpts.Keys,
		Sealer: d.bmh.sealer, Log: d.log.With("service", "kubeapi"), Admit: acm.Admission(d.store),
	})
	if err != nil {
		return fmt.Errorf("kube API: %w", err)
	}
	d.kube = h
	return nil
}

// mountKube adds the kube API's paths (/api, /apis, /openapi/, /version)
// to the mux, behind the same loopback guard of the admin token as the
// REST API. /api/assisted-install/ stays the REST API's: the longer
// pattern wins.
func (d *daemon) mountKube(mux *http.ServeMux) {
	if d.kube == nil {
		return
	}
	guarded := httpsOnly{next: adminGuard{next: d.kube, token: d.apiOpts.AdminToken, remote: d.cfg.API.AdminRemote}}
	for _, p := range kubeapi.Paths {
		mux.Handle(p, guarded)
	}
}

// runKube feeds the kube API's watch cache on every node (followers serve
// watches too) and runs the ACM kinds' controller (engine/acm), the
// ownerReferences garbage collector (engine/kubegc) and the writer of
// Terminating namespaces' conditions (engine/kubeapi) while this node
// leads, their writes fenced to the term it leads in.
func (d *daemon) runKube(ctx context.Context) {
	if d.kube == nil {
		return
	}
	d.wg.Add(4)
	go func() {
		defer d.wg.Done()
		d.kube.Run(ctx)
	}()
	go func() { // Terminating namespaces' deletion conditions, on the leader
		defer d.wg.Done()
		engine.WhileLeader(ctx, d.store, func(ctx context.Context) {
			_ = d.kube.RunNamespaceConditions(ctx, engine.Fence(d.store), d.log.With("service", "kubens"))
		})
	}()
	go func() { // the garbage collector of ownerReferences, on the leader
		defer d.wg.Done()
		engine.WhileLeader(ctx, d.store, func(ctx context.Context) {
			_ = kubegc.Run(ctx, engine.Fence(d.store), d.log.With("service", "kubegc"))
		})
	}()
	go func() {
		defer d.wg.Done()
		engine.WhileLeader(ctx, d.store, func(ctx context.Context) {
			fenced := engine.Fence(d.store)
			opts := d.apiOpts.HostOptions()
			opts.Store = fenced
			dom, err := clusters.NewDomain(opts)
			if err != nil {
				d.log.Error("ACM controller not started", "err", err)
				return
			}
			err = acm.Run(ctx, acm.Options{
				Store: fenced, Sealer: d.bmh.sealer, Keys: d.apiOpts.Keys, Domain: dom, ISOs: d.bmh.iso, PXE: d.bmh.pxe,
				ServiceURL: d.cfg.BaseURL(), Log: d.log.With("service", "acm"),
			})
			if err != nil && ctx.Err() == nil {
				d.log.Error("ACM controller stopped", "err", err)
			}
		})
	}()
}
