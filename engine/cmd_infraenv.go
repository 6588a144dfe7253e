package engine

import (
	"slices"

	"github.com/rackboot/rackboot/boot/kargs"
)

// CreateInfraEnv stores a new infra-env. Its cluster, if named, must exist.
type CreateInfraEnv struct {
	Stamp
	InfraEnv InfraEnv `json:"infra_env"`
}

// Type implements Command.
func (*CreateInfraEnv) Type() Type { return TypeCreateInfraEnv }

// bodyVersion: kernel arguments are a field an older rackboot would drop.
func (c *CreateInfraEnv) bodyVersion() byte { return versionIf(len(c.InfraEnv.KernelArguments) > 0) }

func (c *CreateInfraEnv) apply(tx *Tx) (any, error) {
	ie := c.InfraEnv
	if err := checkID(KindInfraEnv, ie.ID); err != nil {
		return nil, err
	}
	if ie.Name == "" {
		return nil, invalid("infra-env %s has no name", ie.ID)
	}
	if err := kargs.Check(ie.KernelArguments); err != nil {
		return nil, invalid("infra-env %s: %v", ie.ID, err)
	}
	if _, ok := tx.m.infraEnvs[ie.ID]; ok {
		return nil, conflict("infra-env %s exists", ie.ID)
	}
	if ie.ClusterID != "" {
		if _, ok := tx.m.clusters[ie.ClusterID]; !ok {
			return nil, notFound(KindCluster, ie.ClusterID)
		}
	}
	ie.Meta = Meta{}
	put(tx, tx.m.infraEnvs, KindInfraEnv, ie.ID, &ie)
	return ie, nil
}

// InfraEnvPatch lists the fields of an infra-env to change; nil leaves a
// field as it is.
type InfraEnvPatch struct {
	Name                  *string            `json:"name,omitempty"`
	PullSecretRef         *string            `json:"pull_secret_ref,omitempty"`
	SSHAuthorizedKey      *string            `json:"ssh_authorized_key,omitempty"`
	Proxy                 *Proxy             `json:"proxy,omitempty"`
	NTPSources            *[]string          `json:"ntp_sources,omitempty"`
	IgnitionOverride      *string            `json:"ignition_config_override,omitempty"`
	Labels                *map[string]string `json:"labels,omitempty"`
	StaticNetworkSelector *map[string]string `json:"static_network_selector,omitempty"`
	ImageType             *string            `json:"image_type,omitempty"`
	KernelArguments       *[]KernelArgument  `json:"kernel_arguments,omitempty"`
}

// UpdateInfraEnv changes fields of an infra-env.
type UpdateInfraEnv struct {
	Stamp
	ID    string        `json:"id"`
	Patch InfraEnvPatch `json:"patch"`
}

// Type implements Command.
func (*UpdateInfraEnv) Type() Type { return TypeUpdateInfraEnv }

// bodyVersion: kernel arguments are a field an older rackboot would drop.
func (c *UpdateInfraEnv) bodyVersion() byte { return versionIf(c.Patch.KernelArguments != nil) }

func (c *UpdateInfraEnv) apply(tx *Tx) (any, error) {
	old, ok := tx.m.infraEnvs[c.ID]
	if !ok {
		return nil, notFound(KindInfraEnv, c.ID)
	}
	p, ie := c.Patch, *old
	if p.Name != nil && *p.Name == "" {
		return nil, invalid("infra-env %s: empty name", c.ID)
	}
	if p.KernelArguments != nil {
		if err := kargs.Check(*p.KernelArguments); err != nil {
			return nil, invalid("infra-env %s: %v", c.ID, err)
		}
	}
	set(&ie.Name, p.Name)
	set(&ie.PullSecretRef, p.PullSecretRef)
	set(&ie.SSHAuthorizedKey, p.SSHAuthorizedKey)
	if p.Proxy != nil {
		px := *p.Proxy
		ie.Proxy = &px
	}
	set(&ie.NTPSources, p.NTPSources)
	set(&ie.IgnitionOverride, p.IgnitionOverride)
	set(&ie.Labels, p.Labels)
	set(&ie.StaticNetworkSelector, p.StaticNetworkSelector)
	set(&ie.ImageType, p.ImageType)
	set(&ie.KernelArguments, p.KernelArguments)
	put(tx, tx.m.infraEnvs, KindInfraEnv, ie.ID, &ie)
	return ie, nil
}

// DeleteInfraEnv removes an infra-env that has no hosts.
type DeleteInfraEnv struct {
	Stamp
	ID string `json:"id"`
}

// Type implements Command.
func (*DeleteInfraEnv) Type() Type { return TypeDeleteInfraEnv }

func (c *DeleteInfraEnv) apply(tx *Tx) (any, error) {
	if _, ok := tx.m.infraEnvs[c.ID]; !ok {
		return nil, notFound(KindInfraEnv, c.ID)
	}
	for _, h := range tx.m.hosts {
		if h.InfraEnvID == c.ID {
			return nil, conflict("infra-env %s still has hosts", c.ID)
		}
	}
	del(tx, tx.m.infraEnvs, KindInfraEnv, c.ID)
	return nil, nil
}

// set copies *p into *dst unless p is nil.
func set[T any](dst *T, p *T) {
	if p != nil {
		*dst = *p
	}
}

// checkID rejects an id that is not a UUID string
// (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, hexadecimal).
func checkID(kind Kind, id string) error {
	if len(id) != 36 {
		return invalid("%s id %q is not a UUID", kind, id)
	}
	for i, r := range id {
		dash := i == 8 || i == 13 || i == 18 || i == 23
		if dash != (r == '-') || !dash && !isHex(r) {
			return invalid("%s id %q is not a UUID", kind, id)
		}
	}
	return nil
}

func isHex(r rune) bool {
	return '0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F'
}

// statusAllowed reports whether cur is one of from (an empty from allows
// any status).
func statusAllowed(cur string, from []string) bool {
	return len(from) == 0 || slices.Contains(from, cur)
}
