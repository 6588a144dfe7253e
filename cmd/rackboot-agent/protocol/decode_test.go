package protocol_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/cmd/rackboot-agent/protocol"
)

func TestDecodeSteps(t *testing.T) {
	s, err := protocol.DecodeSteps(strings.NewReader(`{"instructions":[{"step_type":"inventory","step_id":"inventory-0a1b2c3d","args":["` + hostID + `"]}],"next_instruction_seconds":60,"post_step_action":"exit","extra":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Instructions) != 1 || s.PostStepAction != "exit" || s.NextInstructionSeconds != 60 || s.Instructions[0].Args[0] != hostID {
		t.Fatalf("%+v", s)
	}
	for _, bad := range []string{
		``, `null`, `[]`, `{"instructions":[null]}`, `{"instructions":[{"step_id":"x"}]}`,
		`{"instructions":[{"step_type":"inventory"}]}`, `{"post_step_action":"reboot"}`,
		`{"next_instruction_seconds":-1}`, `{"next_instruction_seconds":99999999}`,
		`{"instructions":"x"}`, `{"instructions":[{"step_type":"a","step_id":"` + strings.Repeat("x", 200) + `"}]}`,
		`{"instructions":[` + strings.Repeat(`{"step_type":"a","step_id":"b"},`, 64) + `{"step_type":"a","step_id":"b"}]}`,
	} {
		if _, err := protocol.DecodeSteps(strings.NewReader(bad)); !errors.Is(err, protocol.ErrDecode) {
			t.Errorf("%.60s: %v, want ErrDecode", bad, err)
		}
	}
}

func FuzzDecodeSteps(f *testing.F) {
	for _, seed := range []string{
		`{"instructions":[{"step_type":"inventory","step_id":"inventory-0a1b2c3d","args":["x"]}],"next_instruction_seconds":60,"post_step_action":"continue"}`,
		`{"instructions":[],"post_step_action":"exit"}`, `{"instructions":[null]}`, `{}`, `[`, `{"next_instruction_seconds":1e99}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := protocol.DecodeSteps(strings.NewReader(string(b)))
		if err != nil {
			if !errors.Is(err, protocol.ErrDecode) {
				t.Fatalf("error %v does not wrap ErrDecode", err)
			}
			return
		}
		if len(s.Instructions) > protocol.MaxSteps || s.NextInstructionSeconds < 0 {
			t.Fatalf("accepted out-of-bounds steps %+v", s)
		}
		for _, st := range s.Instructions {
			if st == nil || st.StepType == "" || st.StepID == "" {
				t.Fatalf("accepted a step without type or id: %+v", st)
			}
		}
	})
}
