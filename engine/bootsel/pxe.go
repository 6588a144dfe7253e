package bootsel

import (
	"context"
	"fmt"

	"github.com/rackboot/rackboot/boot"
	"github.com/rackboot/rackboot/boot/kargs"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/ipxe"
)

// PXE is what an infra-env's PXE boot artifacts are made of (upstream's
// InfraEnv bootArtifacts): the kernel and base initrd files of its image
// set's profile, the command line, the discovery config.ign its initrd
// carries (InfraEnvIgnition's: no per-host part) and the CoreOS image set
// whose live rootfs it boots ("" for an image set without one).
type PXE struct {
	Kernel, Initrd, Cmdline string
	Ignition                []byte
	RootfsImageSet          string
}

// InfraEnvPXE returns infra-env id's PXE artifacts. An unknown infra-env
// is an error wrapping boot.ErrNoBoot and engine.ErrNotFound; one without
// a boot profile wraps ErrNoImage.
func (s *Selector) InfraEnvPXE(ctx context.Context, id string) (PXE, error) {
	var (
		in     inputs
		ok     bool
		rootfs string
	)
	s.opts.Store.Read(func(m *engine.Model) {
		if in.ie, ok = m.InfraEnv(id); !ok {
			return
		}
		imageInputs(m, &in)
		if is, _ := m.BootImageSet(in.ie); is.LiveRootfs.Path != "" {
			rootfs = is.Name
		}
	})
	if !ok {
		return PXE{}, fmt.Errorf("%w: infra-env %s: %w", boot.ErrNoBoot, id, engine.ErrNotFound)
	}
	prof, err := profile(s.cur.Load(), in)
	if err != nil {
		return PXE{}, err
	}
	cmdline, err := kernelArgs(prof.Cmdline)
	if err == nil && len(in.ie.KernelArguments) > 0 {
		if cmdline, err = kargs.Apply(cmdline, in.ie.KernelArguments); err == nil {
			err = ipxe.CheckKernelArgs(cmdline)
		}
	}
	if err != nil {
		return PXE{}, fmt.Errorf("infra-env %s, profile %q: %w", id, prof.Name, err)
	}
	ign, err := s.InfraEnvIgnition(ctx, id)
	if err != nil {
		return PXE{}, err
	}
	return PXE{Kernel: prof.Kernel, Initrd: prof.Initrd, Cmdline: cmdline, Ignition: ign, RootfsImageSet: rootfs}, nil
}
