package qemu

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// ErrQMP is returned when QEMU's QMP monitor refuses or fails a command.
var ErrQMP = errors.New("qemu: qmp")

type qmpReply struct {
	Return json.RawMessage `json:"return"`
	Error  *struct {
		Class string `json:"class"`
		Desc  string `json:"desc"`
	} `json:"error"`
	Event string `json:"event"`
	QMP   any    `json:"QMP"`
}

// QMP runs one command on the VM's QMP socket (a fresh connection per
// call) and returns its "return" value. args may be nil.
func (vm *VM) QMP(ctx context.Context, command string, args any) (json.RawMessage, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", vm.QMPPath)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrQMP, err)
	}
	defer conn.Close()
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(10 * time.Second)
	}
	conn.SetDeadline(deadline)
	dec, enc := json.NewDecoder(conn), json.NewEncoder(conn)
	var greeting qmpReply
	if err := dec.Decode(&greeting); err != nil || greeting.QMP == nil {
		return nil, fmt.Errorf("%w: no greeting: %v", ErrQMP, err)
	}
	if _, err := qmpExec(dec, enc, "qmp_capabilities", nil); err != nil {
		return nil, err
	}
	return qmpExec(dec, enc, command, args)
}

func qmpExec(dec *json.Decoder, enc *json.Encoder, command string, args any) (json.RawMessage, error) {
	req := map[string]any{"execute": command}
	if args != nil {
		req["arguments"] = args
	}
	if err := enc.Encode(req); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrQMP, command, err)
	}
	for {
		var r qmpReply
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrQMP, command, err)
		}
		switch {
		case r.Event != "":
			continue
		case r.Error != nil:
			return nil, fmt.Errorf("%w: %s: %s: %s", ErrQMP, command, r.Error.Class, r.Error.Desc)
		default:
			return r.Return, nil
		}
	}
}

// Quit asks QEMU to exit at once. QEMU may close the socket before it
// answers, which counts as success.
func (vm *VM) Quit(ctx context.Context) error {
	_, err := vm.QMP(ctx, "quit", nil)
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// SystemReset presses the VM's reset button.
func (vm *VM) SystemReset(ctx context.Context) error {
	_, err := vm.QMP(ctx, "system_reset", nil)
	return err
}

// Status returns QEMU's run state ("running", "paused", "shutdown", ...).
func (vm *VM) Status(ctx context.Context) (string, error) {
	raw, err := vm.QMP(ctx, "query-status", nil)
	if err != nil {
		return "", err
	}
	var st struct {
		Status string `json:"status"`
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		return "", fmt.Errorf("%w: query-status: %w", ErrQMP, err)
	}
	return st.Status, nil
}
