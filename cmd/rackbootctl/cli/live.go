package cli

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/cmd/rackbootctl/output"
)

// liveSink draws the progress table of the watched hosts in place on a
// terminal: each change redraws the block (cursor up, rewrite, clear the
// rest), one line per host.
type liveSink struct {
	w     io.Writer
	title string              // a line above the table (install -w: the cluster)
	rows  map[string][]string // host ID → its progress row
	order []string
	drawn int    // lines of the block on the screen
	held  bool   // a batch of changes is coming: draw at release
	width int    // the terminal's columns (0: unknown); longer lines are cut
	last  string // the block last drawn
}

func newLiveSink(w io.Writer) *liveSink {
	return &liveSink{w: w, rows: map[string][]string{}, width: termWidth(w)}
}

// termWidth is the number of columns of the terminal w is (0: unknown).
func termWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok {
		return 0
	}
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}

// cut shortens l to fewer than width runes, so that it takes one row of
// the terminal and the cursor arithmetic holds.
func cut(l string, width int) string {
	if width <= 1 || utf8.RuneCountInString(l) < width {
		return l
	}
	r := []rune(l)
	return string(r[:width-2]) + "…"
}

func (s *liveSink) ready() error { return s.draw() }

func (s *liveSink) hold() { s.held = true }

func (s *liveSink) release() error {
	s.held = false
	return s.draw()
}

func (s *liveSink) emit(typ string, row []string, obj any) error {
	h, ok := obj.(*client.Host)
	if !ok {
		return nil
	}
	switch {
	case typ == client.WatchDeleted:
		delete(s.rows, h.ID)
		s.order = slices.DeleteFunc(s.order, func(id string) bool { return id == h.ID })
	default:
		if _, seen := s.rows[h.ID]; !seen {
			s.order = append(s.order, h.ID)
		}
		s.rows[h.ID] = row
	}
	return s.draw()
}

// draw rewrites the block when it changed.
func (s *liveSink) draw() error {
	if s.held {
		return nil
	}
	t := output.Table{Header: output.Progress(nil).Header}
	slices.SortStableFunc(s.order, func(a, b string) int { return strings.Compare(s.rows[a][0], s.rows[b][0]) }) // by host name
	for _, id := range s.order {
		t.Rows = append(t.Rows, s.rows[id])
	}
	var block strings.Builder
	if s.title != "" {
		block.WriteString(s.title + "\n")
	}
	if err := output.NewPrinter(&block).Print(t, true); err != nil {
		return err
	}
	if block.String() == s.last {
		return nil
	}
	var b strings.Builder
	if s.drawn > 0 {
		fmt.Fprintf(&b, "\r\x1b[%dA", s.drawn) // back to the block's first line
	}
	lines := strings.SplitAfter(strings.TrimSuffix(block.String(), "\n"), "\n")
	for _, l := range lines {
		b.WriteString(cut(strings.TrimSuffix(l, "\n"), s.width) + "\x1b[K\n") // the line, then clear what was longer
	}
	b.WriteString("\x1b[J") // clear lines of hosts that left
	s.drawn, s.last = len(lines), block.String()
	_, err := io.WriteString(s.w, b.String())
	return err
}
