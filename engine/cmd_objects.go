package engine

import "maps"

// PutSecret creates or replaces a secret. With IfRevision set, it
// replaces only the secret last changed at that log index (a compare and
// set): a writer that read the secret, changed it and writes it back
// fails with ErrConflict, changing nothing, when another wrote in between.
type PutSecret struct {
	Stamp
	Secret     Secret `json:"secret"`
	IfRevision uint64 `json:"if_revision,omitempty"`
}

// Type implements Command.
func (*PutSecret) Type() Type { return TypePutSecret }

func (c *PutSecret) bodyVersion() byte { return versionIf(c.IfRevision != 0) }

func (c *PutSecret) apply(tx *Tx) (any, error) {
	s := c.Secret
	if s.Name == "" {
		return nil, invalid("secret without a name")
	}
	if c.IfRevision != 0 {
		cur, ok := tx.m.secrets[s.Name]
		if !ok || cur.Revision != c.IfRevision {
			return nil, conflict("secret %s changed since revision %d", s.Name, c.IfRevision)
		}
	}
	s.Data = maps.Clone(s.Data)
	put(tx, tx.m.secrets, KindSecret, s.Name, &s)
	return nil, nil
}

// DeleteSecret removes a secret.
type DeleteSecret struct {
	Stamp
	Name string `json:"name"`
}

// Type implements Command.
func (*DeleteSecret) Type() Type { return TypeDeleteSecret }

func (c *DeleteSecret) apply(tx *Tx) (any, error) {
	if _, ok := tx.m.secrets[c.Name]; !ok {
		return nil, notFound(KindSecret, c.Name)
	}
	del(tx, tx.m.secrets, KindSecret, c.Name)
	return nil, nil
}

// AppendEvent appends an event; the result is its sequence number. A zero
// Time becomes the command's time.
type AppendEvent struct {
	Stamp
	Event Event `json:"event"`
}

// Type implements Command.
func (*AppendEvent) Type() Type { return TypeAppendEvent }

func (c *AppendEvent) apply(tx *Tx) (any, error) {
	if c.Event.Message == "" {
		return nil, invalid("event without a message")
	}
	return tx.appendEvent(c.Event), nil
}

// CreateNMStateConfig stores a new NMState config.
type CreateNMStateConfig struct {
	Stamp
	Config NMStateConfig `json:"config"`
}

// Type implements Command.
func (*CreateNMStateConfig) Type() Type { return TypeCreateNMStateConfig }

func (c *CreateNMStateConfig) apply(tx *Tx) (any, error) {
	n := c.Config
	if n.Name == "" {
		return nil, invalid("nmstate config without a name")
	}
	if _, ok := tx.m.nmstate[n.Name]; ok {
		return nil, conflict("nmstate config %s exists", n.Name)
	}
	n.Meta = Meta{}
	put(tx, tx.m.nmstate, KindNMStateConfig, n.Name, &n)
	return n, nil
}

// DeleteNMStateConfig removes an NMState config.
type DeleteNMStateConfig struct {
	Stamp
	Name string `json:"name"`
}

// Type implements Command.
func (*DeleteNMStateConfig) Type() Type { return TypeDeleteNMStateConfig }

func (c *DeleteNMStateConfig) apply(tx *Tx) (any, error) {
	if _, ok := tx.m.nmstate[c.Name]; !ok {
		return nil, notFound(KindNMStateConfig, c.Name)
	}
	del(tx, tx.m.nmstate, KindNMStateConfig, c.Name)
	return nil, nil
}

// PutImageSet creates or replaces an image set.
type PutImageSet struct {
	Stamp
	ImageSet ImageSet `json:"image_set"`
}

// Type implements Command.
func (*PutImageSet) Type() Type { return TypePutImageSet }

func (c *PutImageSet) apply(tx *Tx) (any, error) {
	s := c.ImageSet
	if s.Name == "" {
		return nil, invalid("image set without a name")
	}
	if s.Thresholds != nil {
		if err := s.Thresholds.check(); err != nil {
			return nil, invalid("image set %s: %v", s.Name, err)
		}
	}
	put(tx, tx.m.imageSets, KindImageSet, s.Name, &s)
	return s, nil
}

// DeleteImageSet removes an image set.
type DeleteImageSet struct {
	Stamp
	Name string `json:"name"`
}

// Type implements Command.
func (*DeleteImageSet) Type() Type { return TypeDeleteImageSet }

func (c *DeleteImageSet) apply(tx *Tx) (any, error) {
	if _, ok := tx.m.imageSets[c.Name]; !ok {
		return nil, notFound(KindImageSet, c.Name)
	}
	del(tx, tx.m.imageSets, KindImageSet, c.Name)
	return nil, nil
}
