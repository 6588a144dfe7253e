package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/rackboot/rackboot/engine/models"
)

// Bounds on an instructions answer; a service asking for more is broken.
const (
	MaxSteps           = 64
	MaxArgsPerStep     = 64
	MaxStepIDLength    = 128
	MaxNextInstruction = 24 * 60 * 60 // seconds
)

// DecodeSteps reads an instructions answer ({instructions, next_instruction_seconds,
// post_step_action}) and checks it: at most MaxSteps non-null steps, each
// with a step type and a step id, a known post_step_action, and a
// next_instruction_seconds between 0 and a day. Unknown fields are ignored,
// as upstream's client does.
func DecodeSteps(r io.Reader) (*models.Steps, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: instructions: %v", ErrDecode, err)
	}
	if len(data) > MaxResponseBytes {
		return nil, fmt.Errorf("%w: instructions larger than %d bytes", ErrDecode, MaxResponseBytes)
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return nil, fmt.Errorf("%w: instructions are not a JSON object", ErrDecode)
	}
	var s models.Steps
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%w: instructions: %v", ErrDecode, err)
	}
	if err := checkSteps(&s); err != nil {
		return nil, err
	}
	return &s, nil
}

func checkSteps(s *models.Steps) error {
	switch s.PostStepAction {
	case "", models.PostStepActionContinue, models.PostStepActionExit:
	default:
		return fmt.Errorf("%w: instructions: unknown post_step_action %q", ErrDecode, s.PostStepAction)
	}
	if s.NextInstructionSeconds < 0 || s.NextInstructionSeconds > MaxNextInstruction {
		return fmt.Errorf("%w: instructions: next_instruction_seconds %d is outside 0..%d", ErrDecode, s.NextInstructionSeconds, MaxNextInstruction)
	}
	if len(s.Instructions) > MaxSteps {
		return fmt.Errorf("%w: instructions: %d steps, at most %d", ErrDecode, len(s.Instructions), MaxSteps)
	}
	for i, st := range s.Instructions {
		if st == nil {
			return fmt.Errorf("%w: instructions: step %d is null", ErrDecode, i)
		}
		if st.StepType == "" || st.StepID == "" {
			return fmt.Errorf("%w: instructions: step %d has no step_type or step_id", ErrDecode, i)
		}
		if len(st.StepID) > MaxStepIDLength {
			return fmt.Errorf("%w: instructions: step %d id longer than %d bytes", ErrDecode, i, MaxStepIDLength)
		}
		if len(st.Args) > MaxArgsPerStep {
			return fmt.Errorf("%w: instructions: step %q has %d args, at most %d", ErrDecode, st.StepID, len(st.Args), MaxArgsPerStep)
		}
	}
	return nil
}
