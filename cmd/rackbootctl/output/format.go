package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"
)

// ErrFormat is returned for an unknown output format.
var ErrFormat = errors.New("unknown output format")

// Format is an output format (-o).
type Format string

// Output formats.
const (
	FormatTable Format = "table"
	FormatWide  Format = "wide"
	FormatJSON  Format = "json"
	FormatYAML  Format = "yaml"
	// FormatProgress is the installation progress of hosts (Progress).
	FormatProgress Format = "progress"
)

// ParseFormat accepts table (or empty), wide, json, yaml and progress.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(s)); f {
	case "":
		return FormatTable, nil
	case FormatTable, FormatWide, FormatJSON, FormatYAML, FormatProgress:
		return f, nil
	}
	return "", fmt.Errorf("%w %q (want table, wide, json, yaml or progress)", ErrFormat, s)
}

// Tabular reports whether f prints a table.
func (f Format) Tabular() bool { return f == FormatTable || f == FormatWide || f == FormatProgress }

// WriteJSON writes v as indented JSON and a newline.
func WriteJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding JSON: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteYAML writes v as YAML with its JSON field names (v is encoded to
// JSON first, so the keys are the API's).
func WriteYAML(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding YAML: %w", err)
	}
	var doc any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return fmt.Errorf("encoding YAML: %w", err)
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(numbersToYAML(doc)); err != nil {
		return fmt.Errorf("encoding YAML: %w", err)
	}
	return enc.Close()
}

// numbersToYAML turns json.Number into int64 or float64 so YAML prints
// them as numbers, not strings.
func numbersToYAML(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	case map[string]any:
		for k, e := range t {
			t[k] = numbersToYAML(e)
		}
	case []any:
		for i, e := range t {
			t[i] = numbersToYAML(e)
		}
	}
	return v
}

// Write writes v in format f; table formats use tab.
func Write(w io.Writer, f Format, v any, tab Table) error {
	switch f {
	case FormatJSON:
		return WriteJSON(w, v)
	case FormatYAML:
		return WriteYAML(w, v)
	}
	p := NewPrinter(w)
	return p.Print(tab, true)
}
