package qemu

import (
	"bufio"
	"encoding/json"
	"errors"
	"net"
	"path/filepath"
	"testing"
)

// fakeQMP serves one QMP connection the way QEMU does: a greeting, then one
// reply per command, with an asynchronous event before the second reply.
func fakeQMP(t *testing.T, replies map[string]string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "qmp.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		c.Write([]byte(`{"QMP": {"version": {}, "capabilities": []}}` + "\r\n"))
		sc := bufio.NewScanner(c)
		for sc.Scan() {
			var req struct {
				Execute string `json:"execute"`
			}
			json.Unmarshal(sc.Bytes(), &req)
			if req.Execute != "qmp_capabilities" {
				c.Write([]byte(`{"event": "RESET", "data": {}}` + "\r\n"))
			}
			reply, ok := replies[req.Execute]
			if !ok {
				reply = `{"error": {"class": "CommandNotFound", "desc": "no such command"}}`
			}
			c.Write([]byte(reply + "\r\n"))
		}
	}()
	return path
}

func TestQMPStatus(t *testing.T) {
	vm := &VM{QMPPath: fakeQMP(t, map[string]string{
		"qmp_capabilities": `{"return": {}}`,
		"query-status":     `{"return": {"status": "running", "running": true}}`,
	})}
	st, err := vm.Status(t.Context())
	if err != nil || st != "running" {
		t.Errorf("Status = %q, %v", st, err)
	}
}

func TestQMPError(t *testing.T) {
	vm := &VM{QMPPath: fakeQMP(t, map[string]string{"qmp_capabilities": `{"return": {}}`})}
	err := vm.SystemReset(t.Context())
	if !errors.Is(err, ErrQMP) {
		t.Errorf("SystemReset = %v, want ErrQMP", err)
	}
}
