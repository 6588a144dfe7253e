package tftp

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// Opcodes (RFC 1350, RFC 2347).
const (
	opRRQ   = 1
	opWRQ   = 2
	opDATA  = 3
	opACK   = 4
	opERROR = 5
	opOACK  = 6
)

// Error codes (RFC 1350, RFC 2347).
const (
	codeUndefined  = 0
	codeNotFound   = 1
	codeAccess     = 2
	codeIllegalOp  = 4
	codeUnknownTID = 5
)

// Option limits (RFC 2348, RFC 7440). Blocks below 512 bytes are not
// offered: a request asking for one is answered with the default 512.
const (
	minBlockSize  = 512
	maxBlockSize  = 65464
	maxWindowSize = 65535
)

// request is a decoded RRQ or WRQ. Options this server does not know, and
// known options with invalid values, are left out (RFC 2347 lets a server
// ignore them); the zero value of a field means "not asked for".
type request struct {
	write      bool
	name       string // as sent, not cleaned
	mode       string // "octet" or "netascii"
	blksize    int
	tsize      bool
	windowsize int
}

// parseRequest decodes a TFTP read or write request. Anything else, and any
// request that is not NUL-terminated, has no file name or has a mode other
// than octet or netascii, is ErrMalformed.
func parseRequest(p []byte) (request, error) {
	if len(p) < 2 {
		return request{}, fmt.Errorf("%w: %d-byte packet", ErrMalformed, len(p))
	}
	op := binary.BigEndian.Uint16(p)
	if op != opRRQ && op != opWRQ {
		return request{}, fmt.Errorf("%w: opcode %d is not a request", ErrMalformed, op)
	}
	body := p[2:]
	if len(body) == 0 || body[len(body)-1] != 0 {
		return request{}, fmt.Errorf("%w: not NUL-terminated", ErrMalformed)
	}
	fields := bytes.Split(bytes.TrimRight(body, "\x00"), []byte{0})
	if len(fields) < 2 || len(fields[0]) == 0 {
		return request{}, fmt.Errorf("%w: no file name or mode", ErrMalformed)
	}
	r := request{write: op == opWRQ, name: string(fields[0]), mode: strings.ToLower(string(fields[1]))}
	if r.mode != "octet" && r.mode != "netascii" {
		return request{}, fmt.Errorf("%w: transfer mode %q", ErrMalformed, truncate(r.mode, 16))
	}
	for i := 2; i+1 < len(fields); i += 2 {
		r.setOption(strings.ToLower(string(fields[i])), string(fields[i+1]))
	}
	return r, nil
}

func (r *request) setOption(name, value string) {
	n, err := strconv.Atoi(value)
	switch name {
	case "blksize":
		if err == nil && n >= 8 && n <= maxBlockSize {
			r.blksize = n
		}
	case "tsize":
		r.tsize = err == nil && n >= 0
	case "windowsize":
		if err == nil && n >= 1 && n <= maxWindowSize {
			r.windowsize = n
		}
	}
}

// appendString appends s and its terminating NUL.
func appendString(b []byte, s string) []byte { return append(append(b, s...), 0) }

// packRRQ encodes the read request handed to pin/tftp: the cleaned path and
// only the options pin/tftp implements.
func packRRQ(path, mode string, blksize int, tsize bool) []byte {
	b := binary.BigEndian.AppendUint16(nil, opRRQ)
	b = appendString(appendString(b, path), mode)
	if blksize > 0 {
		b = appendString(appendString(b, "blksize"), strconv.Itoa(blksize))
	}
	if tsize {
		b = appendString(appendString(b, "tsize"), "0")
	}
	return b
}

// packError encodes an ERROR packet; msg is cut to keep the packet small.
func packError(code uint16, msg string) []byte {
	b := binary.BigEndian.AppendUint16(nil, opERROR)
	b = binary.BigEndian.AppendUint16(b, code)
	return appendString(b, strings.ReplaceAll(truncate(msg, 200), "\x00", ""))
}

// packOACK encodes an option acknowledgement; opts alternates names and values.
func packOACK(opts ...string) []byte {
	b := binary.BigEndian.AppendUint16(nil, opOACK)
	for _, s := range opts {
		b = appendString(b, s)
	}
	return b
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
