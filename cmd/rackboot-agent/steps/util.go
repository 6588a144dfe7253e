package steps

import (
	"encoding/json"
	"fmt"
)

func marshal(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("steps: encode output: %w", err)
	}
	return string(b), nil
}

// oneJSONArg decodes the step's single JSON argument into v.
func oneJSONArg(step string, args []string, v any) error {
	if len(args) != 1 {
		return fmt.Errorf("%w: %s takes exactly one JSON argument, got %d", ErrArgs, step, len(args))
	}
	if len(args[0]) > 1<<20 {
		return fmt.Errorf("%w: %s argument larger than 1 MiB", ErrArgs, step)
	}
	if err := json.Unmarshal([]byte(args[0]), v); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrArgs, step, err)
	}
	return nil
}
