package output

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/engine/models"
)

// validation is one entry of a validations_info document.
type validation struct {
	ID      string `json:"id"`
	Status  string `json:"status"`
	Message string `json:"message"`
}

// DescribeHost writes a kubectl-describe-like page of h: its fields, its
// inventory (system, CPU, memory, disks, interfaces) and its validations.
func DescribeHost(w io.Writer, h *client.Host) error {
	var b strings.Builder
	inv := inventory(h)
	fields := [][2]string{
		{"ID", h.ID}, {"Hostname", Hostname(h)}, {"Infra-env", h.InfraEnvID}, {"Cluster", h.ClusterID},
		{"Role", role(h)}, {"Status", h.Status}, {"Status info", h.StatusInfo},
		{"Approved", strconv.FormatBool(h.Approved)}, {"Stage", stage(h.Progress)},
		{"Installation disk", firstOf(h.InstallationDiskPath, h.InstallationDiskID)},
		{"Agent version", h.DiscoveryAgentVersion}, {"Checked in", timeOf(h.CheckedInAt)},
		{"Registered", timeOf(h.RegisteredAt)},
	}
	if inv != nil {
		fields = append(fields, [2]string{"System", system(inv.SystemVendor)}, [2]string{"Boot mode", bootMode(inv.Boot)},
			[2]string{"CPU", cpu(inv.CPU)}, [2]string{"Memory", memory(inv.Memory)})
	}
	fieldList(&b, fields)
	if inv == nil {
		b.WriteString("\nInventory: not received yet\n")
	} else {
		section(&b, "Disks", disks(inv.Disks, h.InstallationDiskID))
		section(&b, "Interfaces", interfaces(inv.Interfaces))
	}
	section(&b, "Validations", validations(h.ValidationsInfo))
	_, err := io.WriteString(w, b.String())
	return err
}

func fieldList(b *strings.Builder, fields [][2]string) {
	width := 0
	for _, f := range fields {
		width = max(width, len(f[0]))
	}
	for _, f := range fields {
		fmt.Fprintf(b, "%-*s  %s\n", width+1, f[0]+":", cell(f[1]))
	}
}

// section writes a titled, indented table ("<none>" when it is empty).
func section(b *strings.Builder, title string, t Table) {
	fmt.Fprintf(b, "\n%s:\n", title)
	if len(t.Rows) == 0 {
		b.WriteString("  <none>\n")
		return
	}
	var tb strings.Builder
	_ = NewPrinter(&tb).Print(t, true)
	for _, l := range strings.SplitAfter(strings.TrimSuffix(tb.String(), "\n"), "\n") {
		b.WriteString("  " + strings.TrimSuffix(l, "\n") + "\n")
	}
}

func inventory(h *client.Host) *models.Inventory {
	if h.Inventory == "" {
		return nil
	}
	var inv models.Inventory
	if json.Unmarshal([]byte(h.Inventory), &inv) != nil {
		return nil
	}
	return &inv
}

func disks(ds []*models.Disk, installID string) Table {
	t := Table{Header: []string{"NAME", "TYPE", "SIZE", "BOOTABLE", "REMOVABLE", "ELIGIBLE", "INSTALL", "BY-PATH"}}
	for _, d := range ds {
		if d == nil {
			continue
		}
		eligible := strconv.FormatBool(d.InstallationEligibility.Eligible)
		if !d.InstallationEligibility.Eligible && len(d.InstallationEligibility.NotEligibleReasons) > 0 {
			eligible = "no: " + strings.Join(d.InstallationEligibility.NotEligibleReasons, "; ")
		}
		t.add(d.ID, []string{d.Name, string(d.DriveType), bytesOf(d.SizeBytes), strconv.FormatBool(d.Bootable),
			strconv.FormatBool(d.Removable), eligible, yesNo(installID != "" && d.ID == installID, "*", ""), d.ByPath})
	}
	return t
}

func interfaces(ns []*models.Interface) Table {
	t := Table{Header: []string{"NAME", "MAC", "IPV4", "IPV6", "SPEED", "MTU", "CARRIER"}}
	for _, n := range ns {
		if n == nil {
			continue
		}
		speed := ""
		if n.SpeedMbps > 0 {
			speed = strconv.FormatInt(n.SpeedMbps, 10) + "Mb/s"
		}
		t.add(n.MacAddress, []string{n.Name, n.MacAddress, strings.Join(n.IPV4Addresses, ","),
			strings.Join(n.IPV6Addresses, ","), speed, count(n.Mtu), strconv.FormatBool(n.HasCarrier)})
	}
	return t
}

// validations is the table of a validations_info document, categories
// in name order, validations in the server's order.
func validations(info string) Table {
	t := Table{Header: []string{"CATEGORY", "ID", "STATUS", "MESSAGE"}}
	var doc map[string][]validation
	if info == "" || json.Unmarshal([]byte(info), &doc) != nil {
		return t
	}
	cats := make([]string, 0, len(doc))
	for c := range doc {
		cats = append(cats, c)
	}
	slices.Sort(cats)
	for _, c := range cats {
		for _, v := range doc[c] {
			t.add(v.ID, []string{c, v.ID, v.Status, v.Message})
		}
	}
	return t
}

func system(v *models.SystemVendor) string {
	if v == nil {
		return ""
	}
	s := strings.TrimSpace(v.Manufacturer + " " + v.ProductName)
	var extra []string
	if v.SerialNumber != "" {
		extra = append(extra, "serial "+v.SerialNumber)
	}
	if v.Virtual {
		extra = append(extra, "virtual")
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	return s
}

func bootMode(b *models.Boot) string {
	if b == nil {
		return ""
	}
	return b.CurrentBootMode
}

func cpu(c *models.CPU) string {
	if c == nil {
		return ""
	}
	s := fmt.Sprintf("%d × %s", c.Count, firstOf(c.ModelName, "unknown model"))
	if c.Architecture != "" {
		s += " (" + c.Architecture + ")"
	}
	return s
}

func memory(m *models.Memory) string {
	if m == nil {
		return ""
	}
	return bytesOf(m.PhysicalBytes) + " physical, " + bytesOf(m.UsableBytes) + " usable"
}

// bytesOf is n in binary units with one decimal: 8.0 GiB.
func bytesOf(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	f, i := float64(n), 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f %s", f, units[i])
}

func timeOf(t models.DateTime) string {
	if t.IsZero() {
		return ""
	}
	return t.Time().UTC().Format(time.RFC3339)
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// DescribeCluster writes a kubectl-describe-like page of c: its fields,
// its hosts and its validations.
func DescribeCluster(w io.Writer, c *client.Cluster) error {
	var b strings.Builder
	vips := func(vs []client.VIP) string {
		var s []string
		for _, v := range vs {
			s = append(s, v.IP)
		}
		return strings.Join(s, ",")
	}
	nets := func(ns []client.Network) string {
		var s []string
		for _, n := range ns {
			s = append(s, n.CIDR)
		}
		return strings.Join(s, ",")
	}
	fieldList(&b, [][2]string{
		{"ID", c.ID}, {"Name", c.Name}, {"Version", c.OpenshiftVersion}, {"Base domain", c.BaseDNSDomain},
		{"Control plane", count(c.ControlPlaneCount)}, {"CPU architecture", c.CPUArchitecture},
		{"Status", c.Status}, {"Status info", c.StatusInfo}, {"Pull secret", yesNo(c.PullSecretSet, "set", "not set")},
		{"API VIPs", vips(c.APIVips)}, {"Ingress VIPs", vips(c.IngressVips)},
		{"Machine networks", nets(c.MachineNetworks)}, {"Service networks", nets(c.ServiceNetworks)},
		{"Created", timeOf(c.CreatedAt)},
	})
	section(&b, "Hosts", Hosts(c.Hosts, false))
	section(&b, "Validations", validations(c.ValidationsInfo))
	_, err := io.WriteString(w, b.String())
	return err
}

// DescribeInfraEnv prints an infra-env's fields and its hosts (never its
// pull secret or its image URL's token).
func DescribeInfraEnv(w io.Writer, e *client.InfraEnv, hosts []*client.Host) error {
	var b strings.Builder
	var proxies []string
	if e.Proxy != nil {
		for _, p := range []*string{e.Proxy.HTTPProxy, e.Proxy.HTTPSProxy} {
			if p != nil && *p != "" {
				proxies = append(proxies, *p)
			}
		}
	}
	proxy := strings.Join(proxies, " ")
	fieldList(&b, [][2]string{
		{"ID", e.ID}, {"Name", e.Name}, {"Cluster", e.ClusterID}, {"CPU architecture", e.CPUArchitecture},
		{"Version", e.OpenshiftVersion}, {"Pull secret", yesNo(e.PullSecretSet, "set", "not set")},
		{"SSH key", yesNo(e.SSHAuthorizedKey != "", "set", "not set")}, {"NTP sources", e.AdditionalNtpSources},
		{"Proxy", proxy}, {"Kernel arguments", e.KernelArguments},
		{"Ignition override", yesNo(e.IgnitionConfigOverride != "", "set", "not set")},
		{"Created", timeOf(e.CreatedAt)},
	})
	section(&b, "Hosts", Hosts(hosts, false))
	_, err := io.WriteString(w, b.String())
	return err
}
