package downloads

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/rackboot/rackboot/boot/discovery"
	"github.com/rackboot/rackboot/boot/nmstate"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/clusters"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/infraenvs"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/ipxe"
)

// Files of an infra-env's downloads and its iPXE script types, as
// upstream names them.
const (
	FileDiscoveryIgnition = "discovery.ign"
	FileIPXEScript        = "ipxe-script"
	IPXEAlways            = "discovery-image-always"
	IPXEBootOrder         = "boot-order-control"
)

// DiscoveryIgnition is infra-env id's discovery Ignition with a fresh
// agent token.
func (s *Service) DiscoveryIgnition(id string) ([]byte, error) {
	var (
		ie     engine.InfraEnv
		ps     string
		static []nmstate.HostStaticNetworkConfig
		agent  *discovery.RemoteAgent
		ok     bool
		err    error
	)
	s.o.Store.Read(func(m *engine.Model) {
		if ie, ok = m.InfraEnv(id); ok {
			ps, static = clusters.PullSecret(m, ie.PullSecretRef), infraenvs.StaticNetwork(m, ie)
			if s.o.RemoteAgent != nil {
				agent, err = s.o.RemoteAgent(m, ie)
			}
		}
	})
	if !ok {
		return nil, fmt.Errorf("%w: infra-env %s", hosts.ErrNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("discovery ignition of infra-env %s: %w", id, err)
	}
	tok, err := s.AgentToken(id)
	if err != nil {
		return nil, err
	}
	in := s.infraEnvs.DiscoveryInput(ie, ps, tok, static)
	in.Agent = agent
	ign, err := discovery.Build(in)
	if err != nil {
		return nil, fmt.Errorf("discovery ignition of infra-env %s: %w", id, err)
	}
	return ign, nil
}

// IPXEScript is infra-env id's iPXE script of type typ (IPXEAlways when
// ""): it chains the boot server's per-MAC script (which carries the
// host's initrd and Ignition), for mac or, without one, the MAC iPXE
// reports. With IPXEBootOrder (which needs mac) and the MAC of a host of
// the infra-env that wrote its disk, it exits, so the machine boots its
// disk (upstream's boot-order-control).
func (s *Service) IPXEScript(id, typ, mac string) ([]byte, error) {
	if typ == "" {
		typ = IPXEAlways
	}
	if typ != IPXEAlways && typ != IPXEBootOrder {
		return nil, hosts.Invalid("ipxe_script_type %q is not %s or %s", hosts.Clip(typ), IPXEAlways, IPXEBootOrder)
	}
	if typ == IPXEBootOrder && mac == "" {
		return nil, hosts.Invalid("ipxe_script_type %s needs mac", IPXEBootOrder)
	}
	hexhyp := "${mac:hexhyp}"
	if mac != "" {
		hw, err := net.ParseMAC(mac)
		if err != nil || len(hw) != 6 {
			return nil, hosts.Invalid("mac %q is not a MAC address", hosts.Clip(mac))
		}
		hexhyp = strings.ReplaceAll(hw.String(), ":", "-")
		mac = hw.String()
	}
	var ok, installed bool
	s.o.Store.Read(func(m *engine.Model) {
		if _, ok = m.InfraEnv(id); ok && typ == IPXEBootOrder {
			installed = s.macInstalled(m, id, mac)
		}
	})
	if !ok {
		return nil, fmt.Errorf("%w: infra-env %s", hosts.ErrNotFound, id)
	}
	if installed {
		exit := strings.TrimPrefix(string(ipxe.ExitScript()), "#!ipxe\n")
		return []byte("#!ipxe\n# rackboot: host " + mac + " is installed, boot from disk\n" + exit), nil
	}
	return []byte(fmt.Sprintf("#!ipxe\n# rackboot infra-env %s\nchain --autofree %s/boot/%s/script.ipxe\n", id, s.o.BootURL, hexhyp)), nil
}

// macInstalled reports whether a host of infra-env id with an interface
// of mac has written its disk image.
func (s *Service) macInstalled(m *engine.Model, id, mac string) bool {
	for h := range m.HostsOfInfraEnv(id) {
		if !pastDiskWrite(h.Status) {
			continue
		}
		if inv := s.o.Hosts.Inventory(h); inv != nil {
			for _, nic := range inv.Interfaces {
				if nic != nil && strings.EqualFold(nic.MacAddress, mac) {
					return true
				}
			}
		}
	}
	return false
}

func pastDiskWrite(status string) bool {
	switch status {
	case models.HostStatusInstalled, models.HostStatusInstallingPendingUserAction, models.HostStatusAddedToExistingCluster:
		return true
	}
	return false
}

// ImageURL is the REST API's image URL of infra-env id (upstream's
// downloads/image-url) and when it expires (Options.ImageURLTTL from
// now): the ISO server's presigned discovery ISO, or, for an infra-env
// whose image set has no base ISO (or without an ISO server), the URL of
// its iPXE script with an image token, which boots the same discovery
// image over the network.
func (s *Service) ImageURL(ctx context.Context, id string) (string, time.Time, error) {
	var ok bool
	s.o.Store.Read(func(m *engine.Model) { _, ok = m.InfraEnv(id) })
	if !ok {
		return "", time.Time{}, fmt.Errorf("%w: infra-env %s", hosts.ErrNotFound, id)
	}
	exp := s.o.Now().Add(s.o.ImageURLTTL)
	if s.o.ISOs != nil {
		u, ok, err := s.o.ISOs.DiscoveryISOURL(ctx, id, exp)
		if err != nil {
			return "", time.Time{}, fmt.Errorf("discovery ISO URL: %w", err)
		}
		if ok {
			return u, exp, nil
		}
	}
	tok, err := s.o.Keys.NewPathToken(id, exp)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("sign image token: %w", err)
	}
	return s.ipxeScriptURL(id, auth.QueryImageToken, tok), exp, nil
}

// ipxeScriptURL is the REST API's URL of infra-env id's iPXE script with
// token as query parameter param.
func (s *Service) ipxeScriptURL(id, param, token string) string {
	q := url.Values{"file_name": {FileIPXEScript}, param: {token}}
	return s.infraEnvURL(id, "/downloads/files?"+q.Encode())
}

// Image is what the Kubernetes-compatible API's InfraEnv status names of
// its discovery image: status.bootArtifacts and isoDownloadURL.
type Image struct {
	// IPXEScript is the iPXE script's URL on the REST API with an agent
	// token (api_key), as upstream's.
	IPXEScript string
	// Kernel and Initrd are the PXE server's ("" without a PXE server, or
	// when it has none for the infra-env); Rootfs the live rootfs ("" when
	// the image set has none).
	Kernel, Initrd, Rootfs string
	// ISO is the discovery ISO's URL ("" without a base ISO).
	ISO string
}

// Image is infra-env id's Image. version is the digest of what the image
// is made of: the kernel's, initrd's and ISO's URLs carry it, so they
// change when the image does. Its tokens do not expire, as upstream's
// local-auth image URLs. PXE artifacts that cannot be had are logged and
// left out.
func (s *Service) Image(ctx context.Context, id, version string) (Image, error) {
	var ok bool
	s.o.Store.Read(func(m *engine.Model) { _, ok = m.InfraEnv(id) })
	if !ok {
		return Image{}, fmt.Errorf("%w: infra-env %s", hosts.ErrNotFound, id)
	}
	tok, err := s.AgentToken(id)
	if err != nil {
		return Image{}, err
	}
	img := Image{IPXEScript: s.ipxeScriptURL(id, auth.QueryAPIKey, tok)}
	v := "?" + url.Values{"version": {version}}.Encode()
	if s.o.PXE != nil {
		kernel, initrd, rootfs, err := s.o.PXE.BootArtifacts(ctx, id)
		if err != nil {
			s.o.Log.Warn("infra-env without PXE boot artifacts", "infra_env", id, "err", err)
		} else {
			img.Kernel, img.Initrd, img.Rootfs = kernel+v, initrd+v, rootfs
		}
	}
	if s.o.ISOs == nil {
		return img, nil
	}
	iso, ok, err := s.o.ISOs.DiscoveryISOURL(ctx, id, time.Time{})
	if err != nil {
		return Image{}, fmt.Errorf("discovery ISO URL: %w", err)
	}
	if ok {
		img.ISO = iso + v
	}
	return img, nil
}
