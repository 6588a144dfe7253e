package report

import (
	"fmt"
	"strings"
)

// The targets of issue 2.
const (
	dhcpTarget   = 1.0 // rackbootd DORA/s ÷ Kea's
	tftpTarget   = 1.0 // rackbootd MiB/s ÷ tftpd-hpa's
	httpTarget   = 0.8 // rackbootd MiB/s ÷ nginx's
	rssTargetKiB = 64 << 10
)

// writeSummary prints one line per target: the measured value and whether
// it is met.
func writeSummary(b *strings.Builder, r Report) {
	var lines []string
	if rb, kea, ok := dhcpPair(r); ok {
		lines = append(lines, target("DHCP DORA/s at < 1% drops, rackbootd ÷ Kea", rb/kea, dhcpTarget, "≥"))
	}
	if rb, peer, ok := tftpPair(r); ok {
		lines = append(lines, target("TFTP MiB/s, rackbootd ÷ tftpd-hpa", rb/peer, tftpTarget, "≥"))
	}
	for _, row := range r.HTTP {
		if row.Server == "rackbootd" && row.Note == "" && row.RSSBefore > 0 {
			growth := float64(row.HWM-row.RSSBefore) / 1024
			lines = append(lines, fmt.Sprintf("| HTTP peak RSS growth of rackbootd | %.1f MiB | < %d MiB | %s |",
				growth, rssTargetKiB>>10, met(growth < float64(rssTargetKiB>>10))))
		}
	}
	if rb, peer, ok := httpPair(r); ok {
		lines = append(lines, target("HTTP MiB/s, rackbootd ÷ nginx", rb/peer, httpTarget, "≥"))
	}
	if len(lines) == 0 {
		return
	}
	b.WriteString("\n## Summary\n\n| target | measured | wanted | |\n|---|---:|---:|---|\n")
	b.WriteString(strings.Join(lines, "\n") + "\n")
}

func target(name string, v, want float64, op string) string {
	return fmt.Sprintf("| %s | %.2f× | %s %.1f× | %s |", name, v, op, want, met(v >= want))
}

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "**not met**"
}

func dhcpPair(r Report) (rb, kea float64, ok bool) {
	for _, row := range r.DHCP {
		switch row.Result.Name {
		case "rackbootd":
			rb = row.Result.Best.Exchanges
		case "kea-dhcp4":
			kea = row.Result.Best.Exchanges
		}
	}
	return rb, kea, rb > 0 && kea > 0
}

func tftpPair(r Report) (rb, peer float64, ok bool) {
	for _, row := range r.TFTP {
		if row.Note != "" || row.Result.Seconds == 0 {
			continue
		}
		switch row.Server {
		case "rackbootd":
			rb = row.Result.MiBps()
		case "tftpd-hpa":
			peer = row.Result.MiBps()
		}
	}
	return rb, peer, rb > 0 && peer > 0
}

func httpPair(r Report) (rb, peer float64, ok bool) {
	for _, row := range r.HTTP {
		if row.Note != "" || row.Result.Seconds == 0 {
			continue
		}
		switch row.Server {
		case "rackbootd":
			rb = row.Result.MiBps()
		case "nginx":
			peer = row.Result.MiBps()
		}
	}
	return rb, peer, rb > 0 && peer > 0
}
