package api

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

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

// Files of downloads/files and iPXE script types, as upstream names them.
const (
	fileDiscoveryIgn = "discovery.ign"
	fileIPXEScript   = "ipxe-script"
	ipxeAlways       = "discovery-image-always"
	ipxeBootOrder    = "boot-order-control"
)

// agentToken is the token the agents of infra-env id authenticate with.
func (s *server) agentToken(id string) (string, error) {
	tok, err := s.keys.Sign(auth.Claims{InfraEnvID: id, Subject: "agent"})
	if err != nil {
		return "", fmt.Errorf("sign agent token: %w", err)
	}
	return tok, nil
}

// imageURL answers downloads/image-url as upstream does, with a presigned
// URL of the infra-env's discovery ISO (Options.ISOs, the boot server's
// /images/<id>/<token>/discovery.iso) valid for the image URL lifetime. An
// infra-env whose image set has no base ISO gets the URL of its iPXE script
// instead (with an image token), which boots the same discovery image over
// the network.
func (s *server) imageURL(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	id := r.PathValue("infra_env_id")
	if _, err := s.infraEnv(id); err != nil {
		return err
	}
	exp := s.now().Add(s.ttl)
	if s.isos != nil {
		u, ok, err := s.isos.DiscoveryISOURL(r.Context(), id, exp)
		if err != nil {
			return fmt.Errorf("discovery ISO URL: %w", err)
		}
		if ok {
			writeJSON(w, http.StatusOK, models.PresignedURL{ExpiresAt: dt(exp.UTC()), URL: u})
			return nil
		}
	}
	tok, err := s.keys.NewPathToken(id, exp)
	if err != nil {
		return fmt.Errorf("sign image token: %w", err)
	}
	q := url.Values{"file_name": {fileIPXEScript}, auth.QueryImageToken: {tok}}
	u := s.serviceURL + BasePath + "/infra-envs/" + id + "/downloads/files?" + q.Encode()
	writeJSON(w, http.StatusOK, models.PresignedURL{ExpiresAt: dt(exp.UTC()), URL: u})
	return nil
}

func (s *server) downloadFile(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	id := r.PathValue("infra_env_id")
	q := r.URL.Query()
	var (
		body []byte
		err  error
	)
	switch name := q.Get("file_name"); name {
	case fileDiscoveryIgn:
		body, err = s.discoveryIgnition(id)
	case fileIPXEScript:
		body, err = s.ipxeScript(id, q.Get("ipxe_script_type"), q.Get("mac"))
	case "":
		return badRequest("file_name is required (%s or %s)", fileDiscoveryIgn, fileIPXEScript)
	default:
		return badRequest("file_name %q is not %s or %s", hosts.Clip(name), fileDiscoveryIgn, fileIPXEScript)
	}
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", q.Get("file_name")))
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	return nil
}

// discoveryIgnition builds infra-env id's discovery Ignition with a fresh
// agent token.
func (s *server) discoveryIgnition(id string) ([]byte, error) {
	var (
		ie     engine.InfraEnv
		ps     string
		static []nmstate.HostStaticNetworkConfig
		agent  *discovery.RemoteAgent
		ok     bool
		err    error
	)
	s.store.Read(func(m *engine.Model) {
		if ie, ok = m.InfraEnv(id); ok {
			ps, static = clusters.PullSecret(m, ie.PullSecretRef), infraenvs.StaticNetwork(m, ie)
			if s.remoteAgent != nil {
				agent, err = s.remoteAgent(m, ie)
			}
		}
	})
	if !ok {
		return nil, fmt.Errorf("%w: infra-env %s", ErrNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("discovery ignition of infra-env %s: %w", id, err)
	}
	tok, err := s.agentToken(id)
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

// ipxeScript is infra-env id's iPXE script: it chains the boot server's
// per-MAC script (which carries the host's initrd and Ignition). With
// boot-order-control and a MAC whose host is installed it exits, so the
// machine boots its disk.
func (s *server) ipxeScript(id, typ, mac string) ([]byte, error) {
	if typ == "" {
		typ = ipxeAlways
	}
	if typ != ipxeAlways && typ != ipxeBootOrder {
		return nil, badRequest("ipxe_script_type %q is not %s or %s", hosts.Clip(typ), ipxeAlways, ipxeBootOrder)
	}
	if typ == ipxeBootOrder && mac == "" {
		return nil, badRequest("ipxe_script_type %s needs mac", ipxeBootOrder)
	}
	hexhyp := "${mac:hexhyp}"
	if mac != "" {
		hw, err := net.ParseMAC(mac)
		if err != nil || len(hw) != 6 {
			return nil, badRequest("mac %q is not a MAC address", hosts.Clip(mac))
		}
		hexhyp = strings.ReplaceAll(hw.String(), ":", "-")
		mac = hw.String()
	}
	var (
		ok        bool
		installed bool
	)
	s.store.Read(func(m *engine.Model) {
		if _, ok = m.InfraEnv(id); ok && typ == ipxeBootOrder {
			installed = s.macInstalled(m, id, mac)
		}
	})
	if !ok {
		return nil, fmt.Errorf("%w: infra-env %s", ErrNotFound, id)
	}
	if installed {
		exit := strings.TrimPrefix(string(ipxe.ExitScript()), "#!ipxe\n")
		return []byte("#!ipxe\n# rackboot: host " + mac + " is installed, boot from disk\n" + exit), nil
	}
	return []byte(fmt.Sprintf("#!ipxe\n# rackboot infra-env %s\nchain --autofree %s/boot/%s/script.ipxe\n", id, s.bootURL, hexhyp)), nil
}

// macInstalled reports whether a host of infra-env id with an interface
// of mac has written its disk image (upstream's boot-order-control).
func (s *server) macInstalled(m *engine.Model, id, mac string) bool {
	for h := range m.HostsOfInfraEnv(id) {
		if !pastDiskWrite(h.Status) {
			continue
		}
		if inv := s.hosts.Inventory(h); inv != nil {
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
