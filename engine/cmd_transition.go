package engine

import (
	"bytes"
	"slices"
	"strings"
	"time"
)

// StatusChange moves a cluster to Status when its status is one of From
// (any when From is empty).
type StatusChange struct {
	Status string   `json:"status"`
	Info   string   `json:"info"`
	From   []string `json:"from,omitempty"`
	// Completed stamps the cluster's InstallCompletedAt; Clear zeroes
	// its install clock (InstallStartedAt and InstallCompletedAt).
	Completed bool `json:"completed,omitempty"`
	Clear     bool `json:"clear,omitempty"`
}

// HostChange moves one host like StatusChange.
type HostChange struct {
	ID     string   `json:"id"`
	Status string   `json:"status"`
	Info   string   `json:"info"`
	From   []string `json:"from,omitempty"`
	// Reset clears the host's progress and bootstrap mark and its day-2
	// flag; Day2 sets the day-2 flag; Role, when set, sets its role.
	Reset bool   `json:"reset,omitempty"`
	Day2  bool   `json:"day2,omitempty"`
	Role  string `json:"role,omitempty"`
}

// InstallTransition moves a cluster (when Cluster is set) and hosts of it
// together: every From is checked first, so either all move or, on
// ErrConflict, none does.
type InstallTransition struct {
	Stamp
	ClusterID string        `json:"cluster_id"`
	Cluster   *StatusChange `json:"cluster,omitempty"`
	Hosts     []HostChange  `json:"hosts,omitempty"`
}

// Type implements Command.
func (*InstallTransition) Type() Type { return TypeInstallTransition }

func (c *InstallTransition) apply(tx *Tx) (any, error) {
	cl, ok := tx.m.clusters[c.ClusterID]
	if !ok {
		return nil, notFound(KindCluster, c.ClusterID)
	}
	if err := c.check(tx, cl); err != nil {
		return nil, err
	}
	if ch := c.Cluster; ch != nil {
		n := *cl
		if n.Status != ch.Status {
			n.StatusUpdatedAt = tx.at
		}
		n.Status, n.StatusInfo = ch.Status, ch.Info
		if ch.Clear {
			n.InstallStartedAt, n.InstallCompletedAt = time.Time{}, time.Time{}
		}
		if ch.Completed {
			n.InstallCompletedAt = tx.at
		}
		put(tx, tx.m.clusters, KindCluster, n.ID, &n)
	}
	for _, hc := range c.Hosts {
		h := *tx.m.hosts[hc.ID]
		if h.Status != hc.Status {
			h.StatusUpdatedAt = tx.at
		}
		h.Status, h.StatusInfo = hc.Status, hc.Info
		if hc.Reset {
			h.Progress, h.Bootstrap, h.Day2 = Progress{}, false, false
		}
		if hc.Day2 {
			h.Day2 = true
		}
		if hc.Role != "" {
			h.Role = hc.Role
		}
		tx.putHost(&h)
	}
	return nil, nil
}

func (c *InstallTransition) check(tx *Tx, cl *Cluster) error {
	if ch := c.Cluster; ch != nil {
		if ch.Status == "" {
			return invalid("cluster %s: empty status", c.ClusterID)
		}
		if !statusAllowed(cl.Status, ch.From) {
			return conflict("cluster %s is %q, not one of %q", c.ClusterID, cl.Status, ch.From)
		}
	}
	seen := map[string]bool{}
	for _, hc := range c.Hosts {
		h, ok := tx.m.hosts[hc.ID]
		switch {
		case !ok || h.ClusterID != c.ClusterID:
			return notFound(KindHost, hc.ID)
		case seen[hc.ID]:
			return invalid("host %s listed twice", hc.ID)
		case hc.Status == "":
			return invalid("host %s: empty status", hc.ID)
		case !statusAllowed(h.Status, hc.From):
			return conflict("host %s is %q, not one of %q", hc.ID, h.Status, hc.From)
		}
		seen[hc.ID] = true
	}
	return nil
}

// MaxManifests and MaxManifestSize bound a cluster's custom manifests.
const (
	MaxManifests    = 100
	MaxManifestSize = 1 << 20
)

// PutManifest creates or replaces a custom manifest of a cluster.
type PutManifest struct {
	Stamp
	ClusterID string   `json:"cluster_id"`
	Manifest  Manifest `json:"manifest"`
}

// Type implements Command.
func (*PutManifest) Type() Type { return TypePutManifest }

func (c *PutManifest) apply(tx *Tx) (any, error) {
	old, ok := tx.m.clusters[c.ClusterID]
	if !ok {
		return nil, notFound(KindCluster, c.ClusterID)
	}
	mf := c.Manifest
	if mf.Folder == "" || mf.FileName == "" || len(mf.Content) > MaxManifestSize {
		return nil, invalid("manifest %s/%s: empty name or more than %d bytes", mf.Folder, mf.FileName, MaxManifestSize)
	}
	cl := *old
	i, found := manifestIndex(cl.Manifests, mf.Folder, mf.FileName)
	cl.Manifests = slices.Clone(cl.Manifests)
	switch {
	case found:
		cl.Manifests[i] = mf
	case len(cl.Manifests) >= MaxManifests:
		return nil, conflict("cluster %s has %d manifests already", c.ClusterID, MaxManifests)
	default:
		cl.Manifests = slices.Insert(cl.Manifests, i, mf)
	}
	mf.Content = bytes.Clone(mf.Content)
	cl.Manifests[i] = mf
	put(tx, tx.m.clusters, KindCluster, cl.ID, &cl)
	return mf, nil
}

// DeleteManifest removes a custom manifest of a cluster.
type DeleteManifest struct {
	Stamp
	ClusterID string `json:"cluster_id"`
	Folder    string `json:"folder"`
	FileName  string `json:"file_name"`
}

// Type implements Command.
func (*DeleteManifest) Type() Type { return TypeDeleteManifest }

func (c *DeleteManifest) apply(tx *Tx) (any, error) {
	old, ok := tx.m.clusters[c.ClusterID]
	if !ok {
		return nil, notFound(KindCluster, c.ClusterID)
	}
	i, found := manifestIndex(old.Manifests, c.Folder, c.FileName)
	if !found {
		return nil, notFound("manifest", c.Folder+"/"+c.FileName)
	}
	cl := *old
	cl.Manifests = slices.Delete(slices.Clone(cl.Manifests), i, i+1)
	if len(cl.Manifests) == 0 {
		cl.Manifests = nil
	}
	put(tx, tx.m.clusters, KindCluster, cl.ID, &cl)
	return nil, nil
}

// manifestIndex finds folder/name in ms (sorted by folder, then name), or
// where it would go.
func manifestIndex(ms []Manifest, folder, name string) (int, bool) {
	return slices.BinarySearchFunc(ms, [2]string{folder, name}, func(m Manifest, k [2]string) int {
		switch {
		case m.Folder != k[0]:
			return strings.Compare(m.Folder, k[0])
		default:
			return strings.Compare(m.FileName, k[1])
		}
	})
}
