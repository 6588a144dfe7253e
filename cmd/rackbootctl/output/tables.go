package output

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/engine/models"
)

// none is shown for an empty cell.
const none = "-"

// Clusters is the table of clusters.
func Clusters(cs []*client.Cluster, wide bool, now time.Time) Table {
	t := Table{Header: []string{"ID", "NAME", "VERSION", "BASE-DOMAIN", "CONTROL-PLANE", "HOSTS", "STATUS", "AGE"}}
	if wide {
		t.Header = append(t.Header, "PROGRESS", "INSTALL-TIME", "STATUS-INFO")
	}
	for _, c := range cs {
		r := []string{c.ID, c.Name, c.OpenshiftVersion, c.BaseDNSDomain, count(c.ControlPlaneCount),
			strconv.Itoa(max(len(c.Hosts), int(c.TotalHostCount))), c.Status, age(now, c.CreatedAt)}
		if wide {
			r = append(r, clusterProgress(c), InstallTime(c, now), c.StatusInfo)
		}
		t.add(c.ID, r)
	}
	return t
}

// clusterProgress is the installation's total percentage, once it began.
func clusterProgress(c *client.Cluster) string {
	if c.Progress == nil || c.InstallStartedAt.IsZero() {
		return ""
	}
	return strconv.FormatInt(c.Progress.TotalPercentage, 10) + "%"
}

// InstallTime is how long the cluster's installation took, or has run so
// far ("" before it started).
func InstallTime(c *client.Cluster, now time.Time) string {
	if c.InstallStartedAt.IsZero() {
		return ""
	}
	end := now
	if !c.InstallCompletedAt.IsZero() {
		end = c.InstallCompletedAt.Time()
	}
	return end.Sub(c.InstallStartedAt.Time()).Round(time.Second).String()
}

// InfraEnvs is the table of infra-envs.
func InfraEnvs(es []*client.InfraEnv, wide bool, now time.Time) Table {
	t := Table{Header: []string{"ID", "NAME", "CLUSTER", "TYPE", "ARCH", "AGE"}}
	if wide {
		t.Header = append(t.Header, "PULL-SECRET", "SSH-KEY", "PROXY")
	}
	for _, e := range es {
		r := []string{e.ID, e.Name, e.ClusterID, e.Type, e.CPUArchitecture, age(now, e.CreatedAt)}
		if wide {
			r = append(r, yesNo(e.PullSecretSet, "set", none), yesNo(e.SSHAuthorizedKey != "", "set", none),
				yesNo(proxySet(e.Proxy), "set", none))
		}
		t.add(e.ID, r)
	}
	return t
}

// proxySet reports whether p names a proxy.
func proxySet(p *client.Proxy) bool {
	if p == nil {
		return false
	}
	for _, v := range []*string{p.HTTPProxy, p.HTTPSProxy, p.NoProxy} {
		if v != nil && *v != "" {
			return true
		}
	}
	return false
}

// Hosts is the table of hosts, with the columns of `oc get agents`.
func Hosts(hs []*client.Host, wide bool) Table {
	t := Table{Header: []string{"ID", "HOSTNAME", "ROLE", "STATUS", "APPROVED", "CLUSTER", "INFRA-ENV", "STAGE"}}
	if wide {
		t.Header = append(t.Header, "STATUS-INFO")
	}
	for _, h := range hs {
		r := []string{h.ID, Hostname(h), role(h), h.Status, strconv.FormatBool(h.Approved),
			h.ClusterID, h.InfraEnvID, stage(h.Progress)}
		if wide {
			r = append(r, h.StatusInfo)
		}
		t.add(h.ID, r)
	}
	return t
}

// Events is the table of events.
func Events(es []*client.Event) Table {
	t := Table{Header: []string{"TIME", "SEVERITY", "OBJECT", "MESSAGE"}}
	for i, e := range es {
		obj := "infra-env/" + e.InfraEnvID
		switch {
		case e.HostID != "":
			obj = "host/" + e.HostID
		case e.ClusterID != "":
			obj = "cluster/" + e.ClusterID
		case e.InfraEnvID == "":
			obj = none
		}
		ts := none
		if !e.EventTime.IsZero() {
			ts = e.EventTime.Time().UTC().Format(time.RFC3339)
		}
		t.add(strconv.Itoa(i), []string{ts, e.Severity, obj, e.Message})
	}
	return t
}

func (t *Table) add(key string, cells []string) {
	for i, c := range cells {
		cells[i] = cell(c)
	}
	t.Rows = append(t.Rows, cells)
	t.Keys = append(t.Keys, key)
}

// cell makes s printable on one line: control characters (a terminal
// escape from a hostile inventory, say) are dropped; empty is "-".
func cell(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			return -1
		}
		return r
	}, s)
	if s = strings.TrimSpace(s); s == "" {
		return none
	}
	return s
}

// Hostname is the host's requested hostname, else the inventory's.
func Hostname(h *client.Host) string {
	if h.RequestedHostname != "" {
		return h.RequestedHostname
	}
	var inv struct {
		Hostname string `json:"hostname"`
	}
	if h.Inventory != "" && json.Unmarshal([]byte(h.Inventory), &inv) == nil {
		return inv.Hostname
	}
	return ""
}

func role(h *client.Host) string {
	r := string(h.Role)
	if r == "" {
		r = string(models.HostRoleAutoAssign)
	}
	if h.Role == models.HostRoleAutoAssign && h.SuggestedRole != "" && h.SuggestedRole != h.Role {
		r += "(" + string(h.SuggestedRole) + ")"
	}
	return r
}

func stage(p *models.HostProgressInfo) string {
	if p == nil || p.CurrentStage == "" {
		return ""
	}
	if p.InstallationPercentage > 0 {
		return fmt.Sprintf("%s %d%%", p.CurrentStage, p.InstallationPercentage)
	}
	return string(p.CurrentStage)
}

func count(n int64) string {
	if n == 0 {
		return ""
	}
	return strconv.FormatInt(n, 10)
}

func yesNo(b bool, yes, no string) string {
	if b {
		return yes
	}
	return no
}

// age is a kubectl-style age: 45s, 12m, 3h, 2d.
func age(now time.Time, t models.DateTime) string {
	if t.IsZero() {
		return ""
	}
	d := now.Sub(t.Time())
	switch {
	case d < 0:
		return "0s"
	case d < 2*time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < 2*time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}
