package installer

import (
	"encoding/json"
	"fmt"

	v35 "github.com/coreos/ignition/v2/config/v3_5"
	"github.com/coreos/ignition/v2/config/v3_5/types"

	"github.com/rackboot/rackboot/boot/ignition"
)

// MaxOverrideSize bounds an Ignition override: 256 KiB, as for discovery.
const MaxOverrideSize = 256 << 10

// ValidateOverride checks an Ignition config override (any spec 3.0–3.5)
// with Ignition's parser. The empty string is no override. The error wraps
// ErrInvalidOverride and carries the parser's message.
func ValidateOverride(s string) error {
	_, err := parseOverride(s)
	return err
}

// parseOverride returns the override as a spec 3.5 config.
func parseOverride(s string) (types.Config, error) {
	if s == "" {
		return types.Config{}, nil
	}
	if len(s) > MaxOverrideSize {
		return types.Config{}, fmt.Errorf("%w: %d bytes, over the %d-byte limit", ErrInvalidOverride, len(s), MaxOverrideSize)
	}
	cfg, err := parse([]byte(s))
	if err != nil {
		return types.Config{}, fmt.Errorf("%w: %w", ErrInvalidOverride, err)
	}
	return cfg, nil
}

// Merge merges add over base with Ignition's merge rules (files, links,
// directories and units of add replace base's with the same path or name,
// others are appended; users are merged by name) and returns spec 3.5.0
// JSON. Both may be any spec 3.0–3.5. An invalid base or add, or a merged
// config Ignition refuses, is an error wrapping ignition.ErrInvalid.
func Merge(base, add []byte) ([]byte, error) {
	b, err := parse(base)
	if err != nil {
		return nil, fmt.Errorf("base config: %w", err)
	}
	a, err := parse(add)
	if err != nil {
		return nil, fmt.Errorf("added config: %w", err)
	}
	return encode(v35.Merge(b, a))
}

// parse parses raw (spec 3.0–3.5) with Ignition's parser, translated to
// 3.5. The error is boot/ignition's (ErrInvalid with Ignition's report).
func parse(raw []byte) (types.Config, error) {
	if _, err := ignition.Parse(raw); err != nil {
		return types.Config{}, err
	}
	cfg, _, err := v35.ParseCompatibleVersion(raw)
	if err != nil { // not reached: ignition.Parse runs the same parser
		return types.Config{}, fmt.Errorf("%w: %v", ignition.ErrInvalid, err)
	}
	return cfg, nil
}

// encode marshals cfg as spec 3.5.0 and checks it with Ignition's parser.
func encode(cfg types.Config) ([]byte, error) {
	cfg.Ignition.Version = ignition.Version
	raw, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("encoding Ignition config: %w", err)
	}
	if _, err := ignition.Parse(raw); err != nil {
		return nil, fmt.Errorf("merged config: %w", err)
	}
	return raw, nil
}
