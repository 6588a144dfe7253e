package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/rackboot/rackboot/boot/installer"
	"github.com/rackboot/rackboot/boot/nmstate"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/bmhctl"
	"github.com/rackboot/rackboot/engine/infraenvs"
	"github.com/rackboot/rackboot/engine/install"
	"github.com/rackboot/rackboot/engine/models"
)

// HostTokenTTL is how long the host-scoped token of an install Ignition
// (the first boot's progress report) is valid.
const HostTokenTTL = 7 * 24 * time.Hour

// keyfileDir is where the installed system's NetworkManager keyfiles go.
const keyfileDir = "/etc/NetworkManager/system-connections"

// DiskImagePath is the boot server path of an image set's disk image.
func DiskImagePath(imageSet string) string {
	return "/images/" + url.PathEscape(imageSet) + "/disk.img"
}

func jsonString(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode: %w", err)
	}
	return string(b), nil
}

// installArgs are the install step's arguments for h.
func (s *server) installArgs(h engine.Host) (models.InstallStepArgs, error) {
	var (
		is   engine.ImageSet
		ok   bool
		wipe []string
	)
	s.store.Read(func(m *engine.Model) {
		c, _ := m.Cluster(h.ClusterID)
		is, ok = m.ClusterImageSet(c)
		if b, found := m.BareMetalHost(h.BMHName); found && h.BMHName != "" {
			wipe = bmhctl.WipeDisks(b, h)
		}
	})
	if !ok || is.DiskImage.Path == "" {
		return models.InstallStepArgs{}, fmt.Errorf("%w: host %s: its cluster's image set has no disk image", ErrConflict, h.ID)
	}
	d := install.HostDetails(h)
	if d.BootDevice() == "" {
		return models.InstallStepArgs{}, fmt.Errorf("%w: host %s has no installation disk", ErrConflict, h.ID)
	}
	role := models.HostRole(h.Role)
	if h.Bootstrap {
		role = models.HostRoleBootstrap
	}
	a := models.InstallStepArgs{Role: role, ClusterID: h.ClusterID, HostID: h.ID, InfraEnvID: h.InfraEnvID,
		BootDevice: d.BootDevice(), ImageURL: s.bootURL + DiskImagePath(is.Name),
		ImageSHA256: is.DiskImage.SHA256, ImageSize: is.DiskImage.Size,
		IgnitionURL:    s.serviceURL + BasePath + "/infra-envs/" + h.InfraEnvID + "/hosts/" + h.ID + "/downloads/ignition",
		ExternalReboot: h.BMHName != "", WipeDisks: wipe}
	if h.InstallerArgs != "" {
		_ = json.Unmarshal([]byte(h.InstallerArgs), &a.InstallerArgs) // checked when the BMH set it
	}
	return a, nil
}

// downloadHostIgnition answers the agent of an installing host with the
// host's install Ignition.
func (s *server) downloadHostIgnition(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	ie, id := r.PathValue("infra_env_id"), r.PathValue("host_id")
	h, err := s.hosts.Host(ie, id)
	if err != nil {
		return err
	}
	if !slices.Contains(installStatuses(), h.Status) {
		return fmt.Errorf("%w: host %s is %s, not installing", ErrConflict, id, h.Status)
	}
	cfg, err := s.hostIgnition(h)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, models.HostIgnitionParams{Config: string(cfg)})
	return nil
}

// hostIgnition builds h's install Ignition: its role config with its
// hostname, static network keyfiles, override and first-boot report.
func (s *server) hostIgnition(h engine.Host) ([]byte, error) {
	var (
		role []byte
		keys map[string][]byte
		err  error
	)
	s.store.Read(func(m *engine.Model) {
		a := install.Artifacts(m, h.ClusterID)
		if a == nil {
			err = fmt.Errorf("%w: cluster %s has no install configs yet", ErrConflict, h.ClusterID)
			return
		}
		if role, err = a.RoleConfig(install.Host(h)); err != nil {
			return
		}
		keys, err = hostKeyfiles(m, h)
	})
	if err != nil {
		return nil, fmt.Errorf("install ignition of host %s: %w", h.ID, err)
	}
	tok, err := s.keys.NewHostToken(h.InfraEnvID, h.ID, s.now().Add(HostTokenTTL))
	if err != nil {
		return nil, fmt.Errorf("host token: %w", err)
	}
	return installer.HostIgnition(role, installer.HostParams{
		Hostname: install.HostDetails(h).Hostname, NetworkKeyfiles: keys, IgnitionOverride: h.IgnitionOverride,
		FirstBoot: installer.FirstBoot{Token: tok,
			ProgressURL: s.serviceURL + BasePath + "/infra-envs/" + h.InfraEnvID + "/hosts/" + h.ID + "/progress"},
	})
}

// hostKeyfiles are the NetworkManager keyfiles of the static network
// config that h's infra-env selects for one of h's MACs (nil: none).
func hostKeyfiles(m *engine.Model, h engine.Host) (map[string][]byte, error) {
	ie, ok := m.InfraEnv(h.InfraEnvID)
	if !ok {
		return nil, nil
	}
	macs := install.HostDetails(h).MACs
	for _, c := range infraenvs.StaticNetwork(m, ie) {
		if !slices.ContainsFunc(c.MACInterfaceMap, func(mi nmstate.MACInterface) bool {
			return slices.Contains(macs, strings.ToLower(mi.MACAddress))
		}) {
			continue
		}
		files, err := nmstate.ConvertHosts([]nmstate.HostStaticNetworkConfig{c})
		if err != nil {
			return nil, fmt.Errorf("static network of host %s: %w", h.ID, err)
		}
		out := map[string][]byte{}
		for _, f := range files {
			if base := path.Base(f.Name); strings.HasSuffix(base, ".nmconnection") {
				out[path.Join(keyfileDir, base)] = f.Data
			}
		}
		return out, nil
	}
	return nil, nil
}

// updateHostIgnition is upstream's V2UpdateHostIgnition: PATCH
// .../hosts/{id}/ignition with {"config": ...} sets the host's Ignition
// override ("" removes it), checked like ignition_config_overrides.
func (s *server) updateHostIgnition(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	ie, id := r.PathValue("infra_env_id"), r.PathValue("host_id")
	var p models.HostIgnitionParams
	if err := decode(w, r, maxBody, &p); err != nil {
		return err
	}
	if err := s.hosts.SetIgnitionOverride(r.Context(), ie, id, p.Config); err != nil {
		return err
	}
	w.WriteHeader(http.StatusCreated)
	return nil
}
