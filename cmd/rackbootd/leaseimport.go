package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"

	"github.com/rackboot/rackboot/dhcp/leasefile"
	"github.com/rackboot/rackboot/engine"
)

// importBatch is how many leases one import command carries.
const importBatch = 4096

// importLeaseLog moves the leases of the lease log an older rackbootd kept
// in dir (dhcp-leases.log) into st, once: only into a store that has no
// lease yet, and the log is then renamed to dhcp-leases.log.imported.
func importLeaseLog(ctx context.Context, dir string, st engine.Store, log *slog.Logger) error {
	path := filepath.Join(dir, leasefile.Name)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("lease import: %w", err)
	}
	var have int
	st.Read(func(m *engine.Model) { have = m.LeaseCount() })
	if have == 0 {
		recs, err := readLeaseLog(dir, log)
		if err != nil {
			return err
		}
		for chunk := range slices.Chunk(recs, importBatch) {
			if _, err := st.Apply(ctx, &engine.LeaseCommit{Leases: chunk}); err != nil {
				return fmt.Errorf("lease import: %w", err)
			}
		}
		log.Info("imported the leases of the old lease log", "leases", len(recs), "file", path)
	}
	if err := os.Rename(path, path+".imported"); err != nil {
		return fmt.Errorf("lease import: %w", err)
	}
	return nil
}

func readLeaseLog(dir string, log *slog.Logger) ([]engine.LeaseRecord, error) {
	lf, err := leasefile.Open(dir, log)
	if err != nil {
		return nil, fmt.Errorf("lease import: %w", err)
	}
	var recs []engine.LeaseRecord
	for l := range lf.All() {
		recs = append(recs, engine.RecordOf(l))
	}
	if err := lf.Close(); err != nil {
		return nil, fmt.Errorf("lease import: %w", err)
	}
	return recs, nil
}
