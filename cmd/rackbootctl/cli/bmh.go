package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/cmd/rackbootctl/output"
)

// maxManifest bounds a BareMetalHost manifest file.
const maxManifest = 4 << 20

// infraEnvLabel is the label naming a BMH's infra-env.
const infraEnvLabel = "infraenvs.agent-install.openshift.io"

// isBMH reports whether a resource word names BareMetalHosts.
func isBMH(s string) bool {
	switch strings.ToLower(s) {
	case "bmh", "bmhs", "baremetalhost", "baremetalhosts", "baremetal-host", "baremetal-hosts":
		return true
	}
	return false
}

// bmhOr sends "<verb> bmh ..." to the BareMetalHost verbs and anything
// else to next.
func (a *app) bmhOr(verb string, next command) command {
	return func(ctx context.Context, args []string) error {
		if len(args) == 0 || !isBMH(args[0]) {
			return next(ctx, args)
		}
		switch verb {
		case "create":
			return a.createBMH(ctx, args[1:])
		case "get":
			return a.getBMH(ctx, args[1:])
		case "describe":
			return a.describeBMH(ctx, args[1:])
		case "delete":
			return a.deleteBMH(ctx, args[1:])
		}
		return usageError("%s does not apply to baremetal hosts", verb)
	}
}

func (a *app) createBMH(ctx context.Context, args []string) error {
	var file, format string
	fs := a.flagSet("create bmh")
	fs.StringVar(&file, "f", "", "metal3 manifest `file` (BareMetalHost and its credentials Secret; - for stdin)")
	fs.StringVar(&format, "o", "table", "output `format` of the created objects: table, json or yaml")
	pos, err := a.parse(fs, args, "create bmh -f FILE")
	if err != nil {
		return err
	}
	if err := exactArgs("create bmh", pos, 0, "no arguments, only -f"); err != nil {
		return err
	}
	if file == "" {
		return usageError("create bmh needs -f FILE")
	}
	f, err := output.ParseFormat(format)
	if err != nil {
		return usageError("%v", err)
	}
	data, err := a.readManifest(file)
	if err != nil {
		return err
	}
	m, err := ParseBMHManifests(data)
	if err != nil {
		return err
	}
	for _, s := range m.Skipped {
		fmt.Fprintf(a.env.Stderr, "skipping %s: create bmh takes BareMetalHosts and their Secrets\n", s)
	}
	for _, u := range m.Unknown {
		fmt.Fprintf(a.env.Stderr, "Warning: %s: unknown field, ignored by rackboot\n", u)
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	var made []*client.BareMetalHost
	for _, h := range m.Hosts {
		if h.Credentials == nil {
			fmt.Fprintf(a.env.Stderr, "baremetalhost/%s: the file has no Secret %q; rackbootd must already hold it\n",
				h.Metadata.Name, h.Spec.BMC.CredentialsName)
		}
		b, err := c.CreateBareMetalHost(ctx, h)
		if err != nil {
			return fmt.Errorf("creating baremetalhost %s: %w", h.Metadata.Name, err)
		}
		made = append(made, b)
		if f.Tabular() {
			fmt.Fprintf(a.env.Stdout, "baremetalhost/%s created\n", b.Metadata.Name)
		}
	}
	if f.Tabular() {
		return nil
	}
	return output.Write(a.env.Stdout, f, made, output.Table{})
}

// readManifest reads a manifest file ("-": standard input).
func (a *app) readManifest(path string) ([]byte, error) {
	var r io.Reader = a.env.Stdin
	if path != "-" {
		fh, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("reading the manifest: %w", err)
		}
		defer fh.Close()
		r = fh
	}
	b, err := io.ReadAll(io.LimitReader(r, maxManifest+1))
	if err != nil {
		return nil, fmt.Errorf("reading the manifest %s: %w", path, err)
	}
	if len(b) > maxManifest {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrManifest, path, maxManifest)
	}
	return b, nil
}

func (a *app) getBMH(ctx context.Context, args []string) error {
	var format string
	fs := a.flagSet("get bmh")
	fs.StringVar(&format, "o", "table", "output `format`: table, wide, json or yaml")
	pos, err := a.parse(fs, args, "get bmh [NAME] [-o FORMAT]")
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageError("get bmh takes at most one NAME")
	}
	f, err := output.ParseFormat(format)
	if err != nil {
		return usageError("%v", err)
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	var list []*client.BareMetalHost
	if len(pos) == 1 {
		b, err := c.GetBareMetalHost(ctx, pos[0])
		if err != nil {
			return fmt.Errorf("baremetalhost %s: %w", pos[0], err)
		}
		return output.Write(a.env.Stdout, f, b, bmhTable([]*client.BareMetalHost{b}, f == output.FormatWide, a.env.Now()))
	}
	if list, err = c.ListBareMetalHosts(ctx); err != nil {
		return fmt.Errorf("listing baremetal hosts: %w", err)
	}
	return output.Write(a.env.Stdout, f, list, bmhTable(list, f == output.FormatWide, a.env.Now()))
}

// bmhTable is the table of get bmh.
func bmhTable(list []*client.BareMetalHost, wide bool, now time.Time) output.Table {
	t := output.Table{Header: []string{"NAME", "STATE", "POWER", "ONLINE", "INFRA-ENV", "BOOT-MAC", "ERROR", "AGE"}}
	if wide {
		t.Header = append(t.Header, "BMC", "HOST", "LAST-OPERATION")
	}
	for _, b := range list {
		st := status(b)
		errCol := "-"
		if st.ErrorType != "" {
			errCol = fmt.Sprintf("%s (%d)", st.ErrorType, st.ErrorCount)
		}
		row := []string{b.Metadata.Name, dash(st.Provisioning.State), dash(st.PowerState), strconv.FormatBool(b.Spec.Online),
			dash(b.Metadata.Labels[infraEnvLabel]), dash(b.Spec.BootMACAddress), errCol, age(now, b.Metadata.CreationTimestamp.Time())}
		if wide {
			row = append(row, b.Spec.BMC.Address, dash(st.HostID), dash(st.LastOperation))
		}
		t.Rows = append(t.Rows, row)
		t.Keys = append(t.Keys, b.Metadata.Name)
	}
	return t
}

func (a *app) describeBMH(ctx context.Context, args []string) error {
	pos, err := a.parse(a.flagSet("describe bmh"), args, "describe bmh NAME")
	if err != nil {
		return err
	}
	if err := exactArgs("describe bmh", pos, 1, "one NAME"); err != nil {
		return err
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	b, err := c.GetBareMetalHost(ctx, pos[0])
	if err != nil {
		return fmt.Errorf("baremetalhost %s: %w", pos[0], err)
	}
	return describeBMH(a.env.Stdout, b)
}

// describeBMH writes one BMH as aligned fields.
func describeBMH(w io.Writer, b *client.BareMetalHost) error {
	st := status(b)
	var sb strings.Builder
	field := func(k, v string) { fmt.Fprintf(&sb, "%-20s %s\n", k+":", dash(v)) }
	field("Name", b.Metadata.Name)
	field("BMC address", b.Spec.BMC.Address)
	field("Credentials", b.Spec.BMC.CredentialsName)
	field("TLS verification", strconv.FormatBool(!b.Spec.BMC.DisableCertificateVerification))
	field("Boot MAC", b.Spec.BootMACAddress)
	field("Online", strconv.FormatBool(b.Spec.Online))
	field("Infra-env", b.Metadata.Labels[infraEnvLabel])
	field("Cleaning", b.Spec.AutomatedCleaningMode)
	field("Boot mode", b.Spec.BootMode)
	if h := b.Spec.RootDeviceHints; h != nil {
		hints, _ := json.Marshal(h)
		field("Root device hints", string(hints))
	}
	field("State", st.Provisioning.State)
	field("Operational status", st.OperationalStatus)
	field("Power", st.PowerState)
	field("Paired host", st.HostID)
	field("Last operation", st.LastOperation)
	if !st.LastUpdated.IsZero() {
		field("Last updated", st.LastUpdated.Time().UTC().Format(time.RFC3339))
	}
	if st.ErrorType != "" {
		field("Error", fmt.Sprintf("%s (%d in a row): %s", st.ErrorType, st.ErrorCount, st.ErrorMessage))
		if st.NextRetryTime.IsZero() {
			field("Next retry", "none until the BareMetalHost changes")
		} else {
			field("Next retry", st.NextRetryTime.Time().UTC().Format(time.RFC3339))
		}
	}
	if hw := st.Hardware; hw != nil {
		field("Hardware", fmt.Sprintf("%s %s, %d CPUs, %d MiB, %d NICs, %d disks", hw.SystemVendor.Manufacturer,
			hw.SystemVendor.ProductName, hw.CPU.Count, hw.RAMMebibytes, len(hw.NIC), len(hw.Storage)))
	}
	if len(b.Metadata.Labels) > 0 {
		sb.WriteString("Labels:\n")
		writeMap(&sb, b.Metadata.Labels)
	}
	if len(b.Metadata.Annotations) > 0 {
		sb.WriteString("Annotations:\n")
		writeMap(&sb, b.Metadata.Annotations)
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

func (a *app) deleteBMH(ctx context.Context, args []string) error {
	pos, err := a.parse(a.flagSet("delete bmh"), args, "delete bmh NAME")
	if err != nil {
		return err
	}
	if err := exactArgs("delete bmh", pos, 1, "one NAME"); err != nil {
		return err
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	if err := c.DeleteBareMetalHost(ctx, pos[0]); err != nil {
		return fmt.Errorf("deleting baremetalhost %s: %w", pos[0], err)
	}
	return a.say("baremetalhost/%s deleted\n", pos[0])
}

func status(b *client.BareMetalHost) client.BareMetalHostStatus {
	if b.Status == nil {
		return client.BareMetalHostStatus{}
	}
	return *b.Status
}

func writeMap(sb *strings.Builder, m map[string]string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(sb, "  %s=%s\n", k, m[k])
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// age is a short duration since t ("-" for the zero time).
func age(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}
