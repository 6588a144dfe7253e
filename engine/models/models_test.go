package models

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGoldenRoundTrip decodes upstream-shaped documents strictly (an
// unknown or misspelt field fails) and checks that encoding gives back the
// same bytes: same keys, same order, same omissions.
func TestGoldenRoundTrip(t *testing.T) {
	cases := []struct {
		file string
		v    any
	}{
		{"inventory.json", &Inventory{}},
		{"host_registration_response.json", &HostRegistrationResponse{}},
		{"steps.json", &Steps{}},
		{"step_reply.json", &StepReply{}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			dec := json.NewDecoder(bytes.NewReader(want))
			dec.DisallowUnknownFields()
			if err := dec.Decode(c.v); err != nil {
				t.Fatalf("decode: %v", err)
			}
			got, err := json.MarshalIndent(c.v, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			if !bytes.Equal(got, want) {
				t.Errorf("round trip differs:\n%s", got)
			}
		})
	}
}

func TestInventoryFields(t *testing.T) {
	var inv Inventory
	b, err := os.ReadFile("testdata/inventory.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &inv); err != nil {
		t.Fatal(err)
	}
	if inv.CPU.Count != 8 || inv.CPU.Architecture != "x86_64" {
		t.Errorf("cpu = %+v", inv.CPU)
	}
	d := inv.Disks[0]
	if d.SizeBytes != 128849018880 || d.DriveType != DriveTypeHDD || !d.Bootable || d.ByPath == "" {
		t.Errorf("disk = %+v", d)
	}
	if inv.Memory.PhysicalBytesMethod != MemoryMethodDmidecode {
		t.Errorf("memory = %+v", inv.Memory)
	}
	if inv.Routes[1].Family != FamilyIPv6 || inv.Interfaces[0].SpeedMbps != -1 {
		t.Errorf("routes/interfaces = %+v %+v", inv.Routes[1], inv.Interfaces[0])
	}
}

func TestStepReplyOmitsZeroExitCode(t *testing.T) {
	b, err := json.Marshal(StepReply{StepID: "inventory-00000001", StepType: StepTypeInventory, Output: "{}"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"output":"{}","step_id":"inventory-00000001","step_type":"inventory"}`
	if string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

func TestRegistrationResponseFlattensHost(t *testing.T) {
	r := HostRegistrationResponse{Host: Host{ID: "x", Status: HostStatusDiscovering}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.Contains(s, `"id":"x"`) || strings.Contains(s, `"Host"`) || strings.Contains(s, "next_step_runner_command") {
		t.Errorf("got %s", s)
	}
}

func TestDateTime(t *testing.T) {
	at := DateTime(time.Date(2026, 11, 21, 7, 8, 9, 123456789, time.FixedZone("x", 3600)))
	b, err := json.Marshal(at)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `"2026-11-21T06:08:09.123Z"` {
		t.Errorf("marshal = %s", b)
	}
	var back DateTime
	for _, in := range []string{`"2026-11-21T06:08:09Z"`, `"2026-11-21T07:08:09.5+01:00"`, `null`, `""`} {
		if err := json.Unmarshal([]byte(in), &back); err != nil {
			t.Errorf("unmarshal %s: %v", in, err)
		}
	}
	for _, in := range []string{`"yesterday"`, `12`, `"2026-13-01T00:00:00Z"`} {
		err := json.Unmarshal([]byte(in), &back)
		if !errors.Is(err, ErrDateTime) {
			t.Errorf("unmarshal %s: err = %v, want ErrDateTime", in, err)
		}
	}
}

func TestStepTypes(t *testing.T) {
	seen := map[StepType]bool{}
	for _, s := range StepTypes() {
		if seen[s] || s == "" {
			t.Errorf("duplicate or empty step type %q", s)
		}
		seen[s] = true
	}
	if len(seen) != 19 {
		t.Errorf("%d step types, upstream has 19", len(seen))
	}
}
