package validation

import (
	"fmt"
	"math"
	"strings"
)

const (
	kib = int64(1) << 10
	mib = int64(1) << 20
	gib = int64(1) << 30
	tib = int64(1) << 40
	pib = int64(1) << 50
)

// binaryBytes formats a size the way upstream's memory messages do
// ("16.00 GiB", "512 MiB").
func binaryBytes(b int64) string {
	switch {
	case b >= pib:
		return fmt.Sprintf("%.2f PiB", float64(b)/float64(pib))
	case b >= tib:
		return fmt.Sprintf("%.2f TiB", float64(b)/float64(tib))
	case b >= gib:
		return fmt.Sprintf("%.2f GiB", float64(b)/float64(gib))
	case b >= mib:
		return fmt.Sprintf("%d MiB", b/mib)
	case b >= kib:
		return fmt.Sprintf("%d KiB", b/kib)
	}
	return fmt.Sprintf("%d bytes", b)
}

// decimalBytes formats a disk size the way upstream's disk messages do:
// SI units, up to three decimals, rounded up ("21.475 GB", "120 GB").
func decimalBytes(b int64) string {
	units := []struct {
		size int64
		name string
	}{{1e12, "TB"}, {1e9, "GB"}, {1e6, "MB"}, {1e3, "KB"}}
	for _, u := range units {
		if b >= u.size {
			v := math.Ceil(float64(b)/float64(u.size)*1000) / 1000
			s := strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", v), "0"), ".")
			return s + " " + u.name
		}
	}
	return fmt.Sprintf("%d B", b)
}
