package output_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/cmd/rackbootctl/output"
)

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]output.Format{"": "table", "JSON": "json", "yaml": "yaml", "wide": "wide"} {
		if got, err := output.ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := output.ParseFormat("xml"); !errors.Is(err, output.ErrFormat) {
		t.Errorf("ParseFormat(xml) = %v, want ErrFormat", err)
	}
}

// A printer keeps earlier column widths, so rows printed later by a
// watch line up with the header.
func TestPrinterKeepsWidths(t *testing.T) {
	var b bytes.Buffer
	p := output.NewPrinter(&b)
	if err := p.Print(output.Table{Header: []string{"ID", "STATUS"}, Rows: [][]string{{"a-long-id", "known"}}}, true); err != nil {
		t.Fatal(err)
	}
	if err := p.Print(output.Table{Header: []string{"ID", "STATUS"}, Rows: [][]string{{"b", "insufficient"}}}, false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := []string{"ID          STATUS", "a-long-id   known", "b           insufficient"}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// Control characters from the server (a hostile hostname in an inventory)
// never reach the terminal.
func TestCellsDropControlCharacters(t *testing.T) {
	var b bytes.Buffer
	if err := output.Write(&b, output.FormatTable, nil, output.Hosts(hosts(), false)); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(b.String(), "\x1b\x07") {
		t.Errorf("table carries control characters: %q", b.String())
	}
	if !strings.Contains(b.String(), "evil[31mred") {
		t.Errorf("hostname missing: %s", b.String())
	}
}
