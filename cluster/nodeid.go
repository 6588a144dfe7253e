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

// nodeID reads the node's id from dir, creating it the first time: want,
// or a random id when want is empty. A directory holding another id than
// want is refused: its log belongs to another member.
func nodeID(dir, want string) (raft.ServerID, error) {
	path := filepath.Join(dir, nodeIDFile)
	b, err := os.ReadFile(path)
	if err == nil {
		id := strings.TrimSpace(string(b))
		if id == "" {
			return "", fmt.Errorf("%w: %s is empty", ErrOpen, path)
		}
		if want != "" && id != want {
			return "", fmt.Errorf("%w: the state in %s belongs to node %q, not %q: a node id cannot change (move the directory away to start as a new member)", ErrOpen, dir, id, want)
		}
		return raft.ServerID(id), nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("%w: %w", ErrOpen, err)
	}
	id := want
	if id == "" {
		id = rand.Text()
	}
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
