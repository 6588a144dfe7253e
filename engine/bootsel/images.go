package bootsel

import (
	"context"

	"github.com/rackboot/rackboot/boot/httpboot"
	"github.com/rackboot/rackboot/engine"
)

var (
	_ httpboot.DiskImages   = (*Selector)(nil)
	_ httpboot.RootfsImages = (*Selector)(nil)
	_ httpboot.Agents       = (*Selector)(nil)
)

// DiskImage implements httpboot.DiskImages: the disk image the image set
// named name installs (false: no such image set, or it has none).
func (s *Selector) DiskImage(_ context.Context, name string) (httpboot.DiskImage, bool) {
	var (
		is engine.ImageSet
		ok bool
	)
	s.opts.Store.Read(func(m *engine.Model) { is, ok = m.ImageSet(name) })
	if !ok || is.DiskImage.Path == "" {
		return httpboot.DiskImage{}, false
	}
	return httpboot.DiskImage{Path: is.DiskImage.Path, SHA256: is.DiskImage.SHA256, Size: is.DiskImage.Size}, true
}

// LiveRootfs implements httpboot.RootfsImages: the live rootfs of the
// CoreOS image set named name (false: no such image set, or not CoreOS).
func (s *Selector) LiveRootfs(_ context.Context, name string) (httpboot.DiskImage, bool) {
	var (
		is engine.ImageSet
		ok bool
	)
	s.opts.Store.Read(func(m *engine.Model) { is, ok = m.ImageSet(name) })
	if !ok || is.LiveRootfs.Path == "" {
		return httpboot.DiskImage{}, false
	}
	return httpboot.DiskImage{Path: is.LiveRootfs.Path, SHA256: is.LiveRootfs.SHA256, Size: is.LiveRootfs.Size}, true
}

// Agent implements httpboot.Agents: the rackboot-agent binary for a Go
// architecture (Settings.Agents).
func (s *Selector) Agent(_ context.Context, goarch string) (httpboot.DiskImage, bool) {
	a, ok := s.cur.Load().Agents[goarch]
	if !ok || a.Path == "" {
		return httpboot.DiskImage{}, false
	}
	return httpboot.DiskImage{Path: a.Path}, true
}
