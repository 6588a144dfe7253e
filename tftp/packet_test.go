package tftp

import (
	"bytes"
	"encoding/hex"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func rq(op byte, fields ...string) []byte {
	b := []byte{0, op}
	for _, f := range fields {
		b = append(append(b, f...), 0)
	}
	return b
}

func TestParseRequest(t *testing.T) {
	good := []struct {
		in   []byte
		want request
	}{
		{rq(1, "undionly.kpxe", "octet"), request{name: "undionly.kpxe", mode: "octet"}},
		{rq(1, "ipxe.efi", "OCTET", "blksize", "1432", "tsize", "0"), request{name: "ipxe.efi", mode: "octet", blksize: 1432, tsize: true}},
		{rq(1, "ipxe.efi", "octet", "BlkSize", "1468", "windowsize", "4", "tsize", "0", "timeout", "3"),
			request{name: "ipxe.efi", mode: "octet", blksize: 1468, windowsize: 4, tsize: true}},
		{rq(1, "f", "netascii", "blksize", "70000", "windowsize", "0", "tsize", "x"), request{name: "f", mode: "netascii"}},
		{rq(1, "f", "octet", "blksize"), request{name: "f", mode: "octet"}},                    // dangling option name
		{append(rq(1, "f", "octet"), 0, 0), request{name: "f", mode: "octet"}},                 // NUL padding
		{rq(2, "up", "octet"), request{write: true, name: "up", mode: "octet"}},                // WRQ decodes; the server refuses it
		{rq(1, "../../etc/passwd", "octet"), request{name: "../../etc/passwd", mode: "octet"}}, // names are checked later
	}
	for _, c := range good {
		got, err := parseRequest(c.in)
		if err != nil || got != c.want {
			t.Errorf("parseRequest(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	bad := [][]byte{
		nil, {0}, {0, 1}, {0, 3, 0, 1}, {0, 4, 0, 0}, {0, 5, 0, 1, 'x', 0}, {0, 9},
		rq(1, "f"), rq(1, "", "octet"), rq(1, "f", "mail"), []byte("\x00\x01f\x00octet"),
	}
	for _, in := range bad {
		if got, err := parseRequest(in); !errors.Is(err, ErrMalformed) {
			t.Errorf("parseRequest(%q) = %+v, %v; want ErrMalformed", in, got, err)
		}
	}
}

// TestPacketsGolden pins the bytes this package puts on the wire.
func TestPacketsGolden(t *testing.T) {
	var out strings.Builder
	for _, c := range []struct {
		name string
		pkt  []byte
	}{
		{"rrq-to-pin", packRRQ("ipxe.efi", "octet", 1432, true)},
		{"rrq-plain", packRRQ("undionly.kpxe", "octet", 0, false)},
		{"oack-edk2", packOACK("blksize", "1468", "tsize", "1052672", "windowsize", "4")},
		{"error-access", packError(codeAccess, `access violation: "../x" leaves the root`)},
		{"error-nul-cut", packError(codeNotFound, "a\x00b")},
	} {
		out.WriteString("# " + c.name + "\n" + hex.Dump(c.pkt))
	}
	golden := filepath.Join("testdata", "packets.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(want, []byte(out.String())) {
		t.Errorf("packets differ from %s (run with -update after checking):\n%s", golden, out.String())
	}
}

func FuzzParseRequest(f *testing.F) {
	f.Add(rq(1, "undionly.kpxe", "octet"))
	f.Add(rq(1, "ipxe.efi", "octet", "blksize", "1468", "windowsize", "4", "tsize", "0"))
	f.Add(rq(2, "x", "netascii"))
	f.Add([]byte{0, 4, 0, 1})
	f.Fuzz(func(t *testing.T, p []byte) {
		r, err := parseRequest(p)
		if err != nil {
			return
		}
		if r.name == "" || (r.mode != "octet" && r.mode != "netascii") {
			t.Fatalf("accepted %q as %+v", p, r)
		}
		if r.blksize != 0 && (r.blksize < 8 || r.blksize > maxBlockSize) || r.windowsize < 0 || r.windowsize > maxWindowSize {
			t.Fatalf("option out of range in %+v", r)
		}
		if r.write || len(r.name) > MaxNameLen {
			return
		}
		again, err := parseRequest(packRRQ(r.name, r.mode, r.blksize, r.tsize))
		want := r
		want.windowsize = 0
		if err != nil || again != want {
			t.Fatalf("repacked request %+v parses as %+v, %v", want, again, err)
		}
	})
}
