package cluster

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/raft"
)

// nodeIDFile holds the node's raft server id, created on first start.
const nodeIDFile = "node-id"

// nodeID reads the node's id from dir, creating a random one the first
// time.
func nodeID(dir string) (raft.ServerID, error) {
	path := filepath.Join(dir, nodeIDFile)
	b, err := os.ReadFile(path)
	if err == nil {
		id := strings.TrimSpace(string(b))
		if id == "" {
			return "", fmt.Errorf("%w: %s is empty", ErrOpen, path)
		}
		return raft.ServerID(id), nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("%w: %w", ErrOpen, err)
	}
	id := rand.Text()
	if err := writeSync(path, []byte(id+"\n")); err != nil {
		return "", fmt.Errorf("%w: %w", ErrOpen, err)
	}
	return raft.ServerID(id), nil
}

// writeSync writes a new file durably (file and directory entry).
func writeSync(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o640)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
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
