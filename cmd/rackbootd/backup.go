package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/rackboot/rackboot/cluster"
	"github.com/rackboot/rackboot/cmd/rackbootd/internal/config"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/backup"
)

// mountBackup adds the backup endpoint (backup.Path) to the HTTP mux: the
// admin token only, from loopback unless api.admin_remote.
func (d *daemon) mountBackup(mux *http.ServeMux, token string) {
	node := ""
	if d.cfg.Cluster != nil {
		node = d.cfg.Cluster.NodeID
	} else if host, err := os.Hostname(); err == nil {
		node = host
	}
	h := backup.Handler{Store: d.store, Node: node, Log: d.log.With("service", "backup")}
	mux.Handle(backup.Path, adminGuard{next: adminOnly{next: h, token: token}, token: token, remote: d.cfg.API.AdminRemote})
}

// offlineArgs parses `rackbootd VERB [--config FILE] ARGS...` and loads
// the configuration.
func offlineArgs(verb string, nargs int, args []string, stderr io.Writer) (*daemon, []string, int) {
	flags := flag.NewFlagSet("rackbootd "+verb, flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.Usage = func() { fmt.Fprint(stderr, usage) }
	path := flags.String("config", config.DefaultPath, "configuration file")
	if err := flags.Parse(args); err != nil || flags.NArg() != nargs {
		if err == nil {
			fmt.Fprint(stderr, usage)
		}
		return nil, nil, 2
	}
	cfg, err := config.Load(*path)
	if err != nil {
		printError(stderr, err)
		return nil, nil, 1
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return &daemon{cfg: cfg, log: log}, flags.Args(), 0
}

// restore is `rackbootd restore [--config FILE] BACKUP`: check the backup
// whole, check that its sealed secrets open with this appliance's key,
// and write it as the state of the empty data_dir, offline (the daemon
// stopped). Anything wrong changes nothing.
func restore(args []string, stdout, stderr io.Writer) int {
	d, rest, code := offlineArgs("restore", 1, args, stderr)
	if d == nil {
		return code
	}
	meta, err := d.restore(rest[0])
	if err != nil {
		fmt.Fprintln(stderr, "rackbootd restore:", err)
		return 1
	}
	fmt.Fprintf(stdout, "restored the backup of node %s at index %d taken %s into %s: start rackbootd\n",
		meta.Node, meta.Index, meta.Created.Format(time.RFC3339), d.cfg.Server.DataDir)
	return 0
}

func (d *daemon) restore(file string) (backup.Meta, error) {
	f, err := os.Open(file)
	if err != nil {
		return backup.Meta{}, err
	}
	defer f.Close()
	meta, m, err := backup.Read(f)
	if err != nil {
		return backup.Meta{}, fmt.Errorf("%s: %w; nothing was restored", file, err)
	}
	if err := emptyDataDir(d.cfg.Server.DataDir); err != nil {
		return backup.Meta{}, err
	}
	if err := d.checkSealed(m); err != nil {
		return backup.Meta{}, err
	}
	return meta, cluster.Restore(d.storeConfig(), m)
}

// keptFiles may be in a data_dir a backup is restored into: the keys an
// operator puts there first.
var keptFiles = map[string]bool{engine.SealKeyFile: true, "admin-token": true, "lost+found": true}

// emptyDataDir refuses a data_dir that holds anything but keptFiles.
func emptyDataDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !keptFiles[e.Name()] {
			return fmt.Errorf("data_dir %s is not empty (it holds %s): a backup is restored only into an empty data_dir; nothing was restored", dir, e.Name())
		}
	}
	return nil
}

// checkSealed refuses a backup whose sealed secrets do not open with the
// key this appliance would use: restored, they would be lost.
func (d *daemon) checkSealed(m *engine.Model) error {
	keyPath := filepath.Join(d.cfg.Server.DataDir, engine.SealKeyFile)
	if cl := d.cfg.Cluster; cl != nil && cl.SecretsKey != "" {
		keyPath = cl.SecretsKey
	}
	sealed, opened := 0, 0
	var sealer *engine.Sealer
	for s := range m.Secrets() {
		for k, v := range s.Data {
			if !engine.IsSealed(v) {
				continue
			}
			sealed++
			if sealer == nil {
				var err error
				if sealer, err = engine.LoadSealer(keyPath); err != nil {
					return fmt.Errorf("the backup holds sealed secrets and the key that opens them is needed at %s (the secrets.key of the appliance or rack it came from): %w; nothing was restored", keyPath, err)
				}
			}
			if _, err := sealer.Open(s.Name, k, v); err == nil {
				opened++
			}
		}
	}
	if sealed > 0 && opened == 0 {
		return fmt.Errorf("the backup's sealed secrets do not open with %s: put there the secrets.key of the appliance or rack the backup came from; nothing was restored", keyPath)
	}
	return nil
}

// recoverRack is `rackbootd recover [--config FILE]`: make this rack
// member, offline, the only voter of its rack, keeping its state.
func recoverRack(args []string, stdout, stderr io.Writer) int {
	d, _, code := offlineArgs("recover", 0, args, stderr)
	if d == nil {
		return code
	}
	if d.cfg.Cluster == nil {
		fmt.Fprintln(stderr, "rackbootd recover: the configuration has no [cluster]: a lone appliance is always its own only voter")
		return 1
	}
	if err := cluster.Recover(d.storeConfig()); err != nil {
		fmt.Fprintln(stderr, "rackbootd recover:", err)
		return 1
	}
	fmt.Fprintf(stdout, "node %s is now the only voter of its rack, with its state: start rackbootd, then add members (rackbootctl cluster join)\n", d.cfg.Cluster.NodeID)
	return 0
}
