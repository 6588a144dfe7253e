package main

import (
	"context"
	"fmt"
	"time"

	"github.com/rackboot/rackboot/cluster"
)

// storeOpenTimeout bounds opening the state store: replaying its log and
// electing this node (a one-voter cluster) takes well under a second; a
// rack member waits for a majority of its peers (or to be added).
const storeOpenTimeout = 60 * time.Second

// openStore opens the replicated state under data_dir, its secrets sealed
// with the appliance's (or the rack's) key, and imports the leases of a
// lease log left by an older rackbootd.
func (d *daemon) openStore(ctx context.Context) error {
	sealer, err := d.loadSealer() // bmh.go
	if err != nil {
		return fmt.Errorf("secret-sealing key: %w", err)
	}
	d.bmh.sealer = sealer
	ctx, cancel := context.WithTimeout(ctx, storeOpenTimeout)
	defer cancel()
	cfg := d.storeConfig() // cluster.go
	cfg.Sealer = sealer
	st, err := cluster.Open(ctx, cfg)
	if err != nil {
		return fmt.Errorf("state store: %w", err)
	}
	d.store = st
	return importLeaseLog(ctx, d.cfg.Server.DataDir, st, d.log)
}
