package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rackboot/rackboot/engine/backup"
)

// backupUsage is the usage of the backup verb.
const backupUsage = `backup FILE                a consistent copy of the state (secrets still sealed)
                             into FILE (0600), checked before it is kept; restore it
                             with rackbootd restore into an empty data_dir`

// backup is `rackbootctl backup FILE`: fetch a backup from the admin-only
// endpoint, check it whole (format, size, checksum, state), and write it
// to FILE durably (a temporary file renamed over FILE).
func (a *app) backup(ctx context.Context, args []string) error {
	fs := a.flagSet("backup")
	pos, err := a.parse(fs, args, "backup FILE")
	if err != nil {
		return err
	}
	if err := exactArgs("backup", pos, 1, "FILE"); err != nil {
		return err
	}
	b, err := a.fetchBackup(ctx)
	if err != nil {
		return err
	}
	meta, _, err := backup.Read(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("backup: the server's answer: %w", err)
	}
	if err := writeFileSync(pos[0], b); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	fmt.Fprintf(a.env.Stdout, "backup of node %s at index %d taken %s: %s (%d bytes)\n",
		meta.Node, meta.Index, meta.Created.Format(time.RFC3339), pos[0], len(b))
	return nil
}

// fetchBackup GETs backup.Path with the admin token.
func (a *app) fetchBackup(ctx context.Context) ([]byte, error) {
	base, err := a.serverURL()
	if err != nil {
		return nil, err
	}
	tok, err := a.findToken()
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(strings.TrimRight(strings.TrimSpace(base), "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, usageError("server URL %q is not an http(s) URL", base)
	}
	u.Path = backup.Path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	hc := a.env.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Minute}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u.Path, scrubToken(err, tok))
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, backup.MaxSize+1<<20))
	if err != nil {
		return nil, fmt.Errorf("GET %s: reading answer: %w", u.Path, err)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct{ Reason string }
		if json.Unmarshal(b, &e) != nil || e.Reason == "" {
			e.Reason = strings.TrimSpace(string(b))
		}
		return nil, fmt.Errorf("GET %s: %s: %s", u.Path, resp.Status, e.Reason)
	}
	return b, nil
}

// writeFileSync writes data to path through a synced 0600 temporary file
// in the same directory, renamed over path, the directory synced.
func writeFileSync(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
