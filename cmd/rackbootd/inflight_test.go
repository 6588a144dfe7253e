package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTransfersSurviveReload starts an HTTP download of the kernel and a
// TFTP download, stops reading both part-way, reloads with a profile whose
// kernel is another file, then finishes both: each gets its whole original
// file, and a new request gets the new kernel.
func TestTransfersSurviveReload(t *testing.T) {
	d := startDaemon(t)
	d.waitNote("READY=1")
	oldKernel, err := os.ReadFile(filepath.Join(d.dir, "vmlinuz"))
	if err != nil {
		t.Fatal(err)
	}
	bigFile, err := os.ReadFile(filepath.Join(d.dir, "tftp/big.bin"))
	if err != nil {
		t.Fatal(err)
	}

	resp, err := http.Get("http://" + d.httpAddr + "/boot/" + testMAC + "/kernel")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	head := make([]byte, 64<<10)
	if _, err := io.ReadFull(resp.Body, head); err != nil {
		t.Fatal(err)
	}
	tc := startTFTP(t, d.tftpAddr, "big.bin")
	tc.receive(2)

	d.writeConfig(d.configText("console=ttyS0", "vmlinuz.new"))
	if st := d.reload(); !strings.Contains(st, "STATUS=reloaded") {
		t.Fatalf("reload: %q", st)
	}
	if got := d.get("/boot/" + testMAC + "/kernel"); got != "new kernel" {
		t.Errorf("a new download after the reload got %.40q", got)
	}

	rest, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("the HTTP download broke: %v", err)
	}
	if got := append(head, rest...); !bytes.Equal(got, oldKernel) {
		t.Errorf("the HTTP download got %d bytes, not the %d of the old kernel", len(got), len(oldKernel))
	}
	if got := tc.receive(-1); !bytes.Equal(got, bigFile) {
		t.Errorf("the TFTP download got %d bytes, not the %d of the file", len(got), len(bigFile))
	}
	d.stop()
	// Both transfers are logged when they end: after the reload.
	logs := d.stderr.String()
	reloaded := strings.Index(logs, `msg="configuration reloaded"`)
	for _, done := range []string{fmt.Sprintf("path=/boot/%s/kernel status=200 bytes=%d", testMAC, len(oldKernel)),
		fmt.Sprintf(`msg="tftp transfer complete" service=tftp client=%s file=big.bin bytes=%d`, tc.conn.LocalAddr(), len(bigFile))} {
		if i := strings.Index(logs, done); i < reloaded {
			t.Errorf("%q is not logged after the reload:\n%s", done, logs)
		}
	}
}

// tftpClient is a minimal RFC 1350 client (512-byte blocks, no options)
// that the test can pause between blocks.
type tftpClient struct {
	t    *testing.T
	conn *net.UDPConn
	peer *net.UDPAddr // the transfer's port, once known
	next uint16       // the block expected next
	data []byte
	done bool
}

func startTFTP(t *testing.T, server, file string) *tftpClient {
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	srv, err := net.ResolveUDPAddr("udp", server)
	if err != nil {
		t.Fatal(err)
	}
	rrq := append([]byte{0, 1}, file+"\x00octet\x00"...)
	if _, err := conn.WriteToUDP(rrq, srv); err != nil {
		t.Fatal(err)
	}
	return &tftpClient{t: t, conn: conn, next: 1}
}

// receive takes n more blocks (n < 0: until the last) and returns all the
// data so far. Repeated blocks (the server resends while the test pauses)
// are acknowledged again and otherwise ignored.
func (c *tftpClient) receive(n int) []byte {
	c.t.Helper()
	buf := make([]byte, 516)
	for got := 0; !c.done && (n < 0 || got < n); {
		c.conn.SetReadDeadline(time.Now().Add(waitLimit))
		m, from, err := c.conn.ReadFromUDP(buf)
		if err != nil {
			c.t.Fatalf("TFTP read after %d bytes: %v", len(c.data), err)
		}
		if m < 4 || binary.BigEndian.Uint16(buf) != 3 {
			c.t.Fatalf("TFTP: not a DATA packet: %q", buf[:m])
		}
		block := binary.BigEndian.Uint16(buf[2:])
		c.peer = from
		if block == c.next {
			c.data = append(c.data, buf[4:m]...)
			c.next++
			got++
			c.done = m < 516
		}
		ack := []byte{0, 4, byte(block >> 8), byte(block)}
		if _, err := c.conn.WriteToUDP(ack, c.peer); err != nil {
			c.t.Fatal(err)
		}
	}
	return c.data
}

// TestStopFinishesDownloads: SIGTERM during a download stops new requests
// but lets the download finish, then the daemon exits 0.
func TestStopFinishesDownloads(t *testing.T) {
	d := startDaemon(t)
	d.waitNote("READY=1")
	kernel, err := os.ReadFile(filepath.Join(d.dir, "vmlinuz"))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + d.httpAddr + "/boot/" + testMAC + "/kernel")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	head := make([]byte, 64<<10)
	if _, err := io.ReadFull(resp.Body, head); err != nil {
		t.Fatal(err)
	}
	d.signal(syscall.SIGTERM)
	d.waitNote("STOPPING=1")
	rest, err := io.ReadAll(resp.Body)
	if err != nil || !bytes.Equal(append(head, rest...), kernel) {
		t.Fatalf("the download was cut: %v, %d of %d bytes", err, len(head)+len(rest), len(kernel))
	}
	if err := <-d.exited; err != nil {
		t.Errorf("rackbootd exited with %v", err)
	}
	d.exited <- nil
	logs := d.stderr.String()
	done := fmt.Sprintf("path=/boot/%s/kernel status=200 bytes=%d", testMAC, len(kernel))
	if strings.Index(logs, done) < strings.Index(logs, "msg=stopping") {
		t.Errorf("%q is not logged after the stop began:\n%s", done, logs)
	}
}
