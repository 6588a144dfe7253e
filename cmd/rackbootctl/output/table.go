package output

import (
	"io"
	"strings"
	"unicode/utf8"
)

// Table is a header and rows of cells. Key holds, per row, the id that
// identifies the row's object (for watches).
type Table struct {
	Header []string
	Rows   [][]string
	Keys   []string
}

// Column returns the index of the column named name, or -1.
func (t Table) Column(name string) int {
	for i, h := range t.Header {
		if h == name {
			return i
		}
	}
	return -1
}

// Printer writes tables with space-padded columns. Widths only grow, so
// rows printed by later calls line up with earlier ones.
type Printer struct {
	w      io.Writer
	widths []int
}

// NewPrinter returns a printer writing to w.
func NewPrinter(w io.Writer) *Printer { return &Printer{w: w} }

// Print writes the rows of t, and its header first when header is set.
func (p *Printer) Print(t Table, header bool) error {
	p.grow(t.Header)
	for _, r := range t.Rows {
		p.grow(r)
	}
	var b strings.Builder
	if header {
		p.line(&b, t.Header)
	}
	for _, r := range t.Rows {
		p.line(&b, r)
	}
	_, err := io.WriteString(p.w, b.String())
	return err
}

func (p *Printer) grow(cells []string) {
	for len(p.widths) < len(cells) {
		p.widths = append(p.widths, 0)
	}
	for i, c := range cells {
		if n := utf8.RuneCountInString(c); n > p.widths[i] {
			p.widths[i] = n
		}
	}
}

func (p *Printer) line(b *strings.Builder, cells []string) {
	for i, c := range cells {
		b.WriteString(c)
		if i == len(cells)-1 {
			break
		}
		b.WriteString(strings.Repeat(" ", p.widths[i]-utf8.RuneCountInString(c)+3))
	}
	b.WriteByte('\n')
}
