package inventory

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"runtime"
	"strconv"
	"strings"

	"github.com/rackboot/rackboot/engine/models"
)

// CPUInfo is what /proc/cpuinfo says about the processors.
type CPUInfo struct {
	Processors int      // "processor" entries: the online CPUs
	ModelName  string   // "model name" (x86), else derived from the ARM part number
	Flags      []string // "flags" (x86) or "Features" (arm64) of the first CPU
	MHz        float64  // highest "cpu MHz"
	Hypervisor bool     // the CPUID hypervisor bit is set: a virtual machine
}

// armParts names common Arm Ltd (implementer 0x41) cores, as lscpu does.
var armParts = map[string]string{
	"0xd03": "Cortex-A53", "0xd07": "Cortex-A57", "0xd08": "Cortex-A72",
	"0xd0b": "Cortex-A76", "0xd0c": "Neoverse-N1", "0xd40": "Neoverse-V1",
	"0xd49": "Neoverse-N2", "0xd4f": "Neoverse-V2",
}

// ParseCPUInfo parses /proc/cpuinfo. It fails when no processor is listed
// or a line is not "key : value".
func ParseCPUInfo(b []byte) (CPUInfo, error) {
	var ci CPUInfo
	var implementer, part string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			return CPUInfo{}, fmt.Errorf("%w: cpuinfo line %d has no colon", ErrParse, n)
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch key {
		case "processor":
			ci.Processors++
		case "model name":
			if ci.ModelName == "" {
				ci.ModelName = val
			}
		case "flags", "Features":
			if ci.Flags == nil {
				ci.Flags = strings.Fields(val)
			}
		case "cpu MHz":
			if f, err := strconv.ParseFloat(val, 64); err == nil && f > ci.MHz {
				ci.MHz = f
			}
		case "CPU implementer":
			implementer = val
		case "CPU part":
			part = val
		}
	}
	if err := sc.Err(); err != nil {
		return CPUInfo{}, fmt.Errorf("%w: cpuinfo: %w", ErrParse, err)
	}
	if ci.Processors == 0 {
		return CPUInfo{}, fmt.Errorf("%w: cpuinfo lists no processor", ErrParse)
	}
	if ci.ModelName == "" && implementer == "0x41" {
		ci.ModelName = armParts[part]
	}
	for _, f := range ci.Flags {
		if f == "hypervisor" {
			ci.Hypervisor = true
		}
	}
	return ci, nil
}

func (c *Collector) cpuInfo() (CPUInfo, error) {
	b, err := fs.ReadFile(c.fsys(), "proc/cpuinfo")
	if err != nil {
		return CPUInfo{}, err
	}
	return ParseCPUInfo(b)
}

// CPU reads /proc/cpuinfo and the cpufreq maxima in sysfs (upstream runs
// lscpu, which reads the same files). Frequency is the highest of
// "cpu MHz" and cpuinfo_max_freq, in MHz.
func (c *Collector) CPU() (*models.CPU, error) {
	ci, err := c.cpuInfo()
	if err != nil {
		return nil, err
	}
	arch := c.Arch
	if arch == "" {
		arch = runtime.GOARCH
	}
	flags := ci.Flags
	if flags == nil {
		flags = []string{}
	}
	return &models.CPU{
		Architecture: KernelArch(arch),
		Count:        int64(ci.Processors),
		Flags:        flags,
		Frequency:    max(ci.MHz, c.maxFreqMHz()),
		ModelName:    ci.ModelName,
	}, nil
}

// maxFreqMHz is the highest cpufreq cpuinfo_max_freq (kHz) in MHz, or 0.
func (c *Collector) maxFreqMHz() float64 {
	names, _ := fs.Glob(c.fsys(), "sys/devices/system/cpu/cpu*/cpufreq/cpuinfo_max_freq")
	var best float64
	for _, n := range names {
		if khz, err := readInt(c.fsys(), n); err == nil {
			best = max(best, float64(khz)/1000)
		}
	}
	return best
}
