package api

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/engine/validation"
)

func clusterHref(id string) string  { return BasePath + "/clusters/" + id }
func infraEnvHref(id string) string { return BasePath + "/infra-envs/" + id }
func hostHref(ie, id string) string { return BasePath + "/infra-envs/" + ie + "/hosts/" + id }

func dt(t time.Time) models.DateTime { return models.DateTime(t) }

// clusterOut is c as the API shows it, with its hosts and its live
// cluster validations.
func (s *server) clusterOut(m *engine.Model, c engine.Cluster) models.Cluster {
	out := models.Cluster{
		APIVips: ips(c.ID, c.APIVIPs), BaseDNSDomain: c.BaseDomain,
		ClusterNetworks: []models.ClusterNetwork{}, ControlPlaneCount: int64(c.ControlPlaneCount),
		CPUArchitecture: hosts.ClusterArch(m, c), CreatedAt: dt(c.CreatedAt),
		HighAvailabilityMode: haMode(c.ControlPlaneCount), Hosts: []*models.APIHost{},
		Href: clusterHref(c.ID), ID: c.ID, IngressVips: ips(c.ID, c.IngressVIPs), Kind: kindCluster,
		MachineNetworks: nets(c.ID, c.MachineNetworks), Name: c.Name, OpenshiftVersion: c.OpenshiftVersion,
		PullSecretSet: c.PullSecretRef != "", ServiceNetworks: nets(c.ID, c.ServiceNetworks),
		SSHPublicKey: c.SSHPublicKey, Status: c.Status, StatusInfo: c.StatusInfo,
		StatusUpdatedAt: dt(c.StatusUpdatedAt), UpdatedAt: dt(c.UpdatedAt),
		NetworkType: c.NetworkType, HoldInstallation: c.HoldInstallation, ImageSetRef: c.ImageSetRef,
		InstallConfigOverrides: c.InstallConfigOverrides, InstallStartedAt: dt(c.InstallStartedAt),
		InstallCompletedAt: dt(c.InstallCompletedAt),
	}
	if out.NetworkType == "" {
		out.NetworkType = validation.NetworkTypeOVNKubernetes
	}
	out.Progress = clusterProgress(m, c)
	for _, n := range c.ClusterNetworks {
		out.ClusterNetworks = append(out.ClusterNetworks, models.ClusterNetwork{CIDR: n.CIDR, ClusterID: c.ID, HostPrefix: int64(n.HostPrefix)})
	}
	for h := range m.HostsOfCluster(c.ID) {
		out.Hosts = append(out.Hosts, s.hostOut(h))
		out.TotalHostCount++
		out.EnabledHostCount++
		if h.Status == models.HostStatusKnown {
			out.ReadyHostCount++
		}
	}
	t := s.hosts.ClusterThresholds(m, c)
	if info, err := validation.ValidateCluster(s.hosts.ClusterFacts(m, c, &t), t).JSON(); err == nil {
		out.ValidationsInfo = info
	}
	return out
}

func haMode(controlPlane int) string {
	if controlPlane == 1 {
		return "None"
	}
	return "Full"
}

func ips(clusterID string, in []string) []models.VIP {
	out := []models.VIP{}
	for _, ip := range in {
		out = append(out, models.VIP{ClusterID: clusterID, IP: ip})
	}
	return out
}

func nets(clusterID string, in []string) []models.Network {
	out := []models.Network{}
	for _, c := range in {
		out = append(out, models.Network{CIDR: c, ClusterID: clusterID})
	}
	return out
}

// infraEnvOut is ie as the API shows it.
func infraEnvOut(ie engine.InfraEnv) models.InfraEnv {
	out := models.InfraEnv{
		AdditionalNtpSources: strings.Join(ie.NTPSources, ","), ClusterID: ie.ClusterID,
		CPUArchitecture: ie.CPUArchitecture, CreatedAt: dt(ie.CreatedAt), Href: infraEnvHref(ie.ID),
		ID: ie.ID, IgnitionConfigOverride: ie.IgnitionOverride, Kind: kindInfraEnv, Name: ie.Name,
		PullSecretSet: ie.PullSecretRef != "", SSHAuthorizedKey: ie.SSHAuthorizedKey,
		Type: ie.ImageType, UpdatedAt: dt(ie.UpdatedAt), KernelArguments: kernelArgsOut(ie.KernelArguments),
	}
	if ie.Proxy != nil {
		p := *ie.Proxy
		out.Proxy = &models.Proxy{HTTPProxy: &p.HTTPProxy, HTTPSProxy: &p.HTTPSProxy, NoProxy: &p.NoProxy}
	}
	return out
}

// hostOut is h as the API shows it.
func (s *server) hostOut(h engine.Host) *models.APIHost {
	role := models.HostRole(h.Role)
	if role == "" {
		role = models.HostRoleAutoAssign
	}
	out := &models.APIHost{Approved: h.Approved, Host: models.Host{
		CheckedInAt: dt(h.CheckedInAt), ClusterID: h.ClusterID, CreatedAt: dt(h.CreatedAt),
		DiscoveryAgentVersion: h.AgentVersion, Href: hostHref(h.InfraEnvID, h.ID), ID: h.ID,
		InfraEnvID: h.InfraEnvID, InstallationDiskID: h.InstallationDiskID,
		Inventory: string(h.Inventory), Kind: models.HostKindHost, RegisteredAt: dt(h.CreatedAt),
		RequestedHostname: h.RequestedHostname, Role: role, SuggestedRole: role,
		Status: h.Status, StatusInfo: h.StatusInfo, StatusUpdatedAt: dt(h.StatusUpdatedAt),
		UpdatedAt: dt(h.UpdatedAt), ValidationsInfo: validationsInfo(h.Validations),
		NtpSources: string(h.NTPSources), DomainNameResolutions: string(h.DomainResolutions),
		Connectivity: string(h.Connectivity), Timestamp: h.HostTime, DisksInfo: string(h.DisksInfo),
		Progress: &models.HostProgressInfo{
			CurrentStage: models.HostStage(h.Progress.CurrentStage), ProgressInfo: h.Progress.ProgressInfo,
			InstallationPercentage: int64(h.Progress.InstallationPercentage),
			StageStartedAt:         dt(h.Progress.StageStartedAt), StageUpdatedAt: dt(h.Progress.StageUpdatedAt),
		},
	}}
	if h.Progress.CurrentStage != "" || slices.Contains(engine.HostInstalling(), h.Status) {
		out.ProgressStages = engine.InstallStages()
	}
	out.Bootstrap, out.IgnitionConfigOverrides, out.InstallerArgs = h.Bootstrap, h.IgnitionOverride, h.InstallerArgs
	if h.Day2 {
		out.Kind = models.HostKindAddToExistingClusterHost
	}
	if inv := s.hosts.Inventory(h); inv != nil {
		for _, d := range inv.Disks {
			if d != nil && d.ID != "" && d.ID == h.InstallationDiskID {
				out.InstallationDiskPath = d.Path
			}
		}
	}
	return out
}

// validationsInfo is the validations_info document of stored results.
func validationsInfo(vs []engine.Validation) string {
	if len(vs) == 0 {
		return ""
	}
	rs := make(validation.Results, 0, len(vs))
	for _, v := range vs {
		rs = append(rs, validation.Result{ID: validation.ID(v.ID), Status: validation.Status(v.Status),
			Message: v.Message, Category: validation.Category(v.Category)})
	}
	s, err := rs.JSON()
	if err != nil {
		return ""
	}
	return s
}

// eventOut is e as the API shows it.
func eventOut(e engine.Event) models.Event {
	out := models.Event{Category: "user", ClusterID: e.ClusterID, EventTime: dt(e.Time), HostID: e.HostID,
		InfraEnvID: e.InfraEnvID, Message: e.Message, Name: e.Name, Severity: e.Severity}
	if len(e.Props) > 0 {
		if b, err := json.Marshal(e.Props); err == nil {
			out.Props = string(b)
		}
	}
	if id := e.Props["request_id"]; id != "" {
		out.RequestID = id
	}
	return out
}
