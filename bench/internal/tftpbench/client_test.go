package tftpbench

import (
	"bytes"
	"context"
	"crypto/rand"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startTFTPDHPA runs tftpd-hpa on a free loopback port, serving dir.
func startTFTPDHPA(t *testing.T, dir string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("in.tftpd -s needs root")
	}
	if _, err := exec.LookPath("in.tftpd"); err != nil {
		t.Skip("tftpd-hpa is not installed")
	}
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := pc.LocalAddr().String()
	pc.Close()
	cmd := exec.Command("in.tftpd", "-L", "-u", "root", "--address", addr, "-s", dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return addr
}

func TestLoadAgainstTFTPDHPA(t *testing.T) {
	dir := t.TempDir()
	data := make([]byte, 300_000) // 205 blocks of 1468, the last one short
	rand.Read(data)
	if err := os.WriteFile(filepath.Join(dir, "f.bin"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	addr := startTFTPDHPA(t, dir)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var res Result
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		var err error
		res, err = Load{Server: addr, File: "f.bin", Size: int64(len(data)), Workers: 4, PerWorker: 3, BlkSize: 1468}.Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if res.Transfers == 12 {
			break
		}
	}
	if res.Transfers != 12 || res.Errors != 0 || res.Bytes != 12*int64(len(data)) {
		t.Fatalf("result %+v, want 12 clean transfers", res)
	}
	res, _ = Load{Server: addr, File: "missing", Workers: 1, PerWorker: 1, BlkSize: 512}.Run(ctx)
	if res.Errors != 1 || !strings.Contains(res.FirstError, "error packet") {
		t.Errorf("missing file: %+v, want a server error", res)
	}
}

func TestGetReceivesExactBytes(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 512, 1468, 1469} {
		data := bytes.Repeat([]byte{'a'}, size)
		if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(size)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	addr := startTFTPDHPA(t, dir)
	srv, _ := net.ResolveUDPAddr("udp4", addr)
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c := &Client{Conn: conn, Server: srv, BlkSize: 1468, Timeout: time.Second, Retries: 5}
	for _, size := range []int{0, 512, 1468, 1469} {
		n, err := c.Get(strconv.Itoa(size))
		if err != nil || n != int64(size) {
			t.Errorf("Get(%d) = %d, %v", size, n, err)
		}
	}
}

func TestWindowAcksLastBlockOrGap(t *testing.T) {
	tr := transfer{blk: 100, window: 4, next: 1}
	steps := []struct {
		n    uint16
		size int
		ack  int // -1: no ACK
		done bool
	}{
		{1, 100, -1, false}, {2, 100, -1, false}, {3, 100, -1, false}, {4, 100, 4, false},
		{5, 100, -1, false}, {7, 100, 5, false}, // 6 lost: ACK 5, the server resends from 6
		{6, 100, -1, false}, {6, 100, -1, false}, // a duplicate is ignored
		{7, 100, -1, false}, {8, 100, -1, false}, {9, 100, 9, false},
		{10, 40, 10, true},
	}
	for i, s := range steps {
		a, done := tr.data(s.n, s.size)
		got := -1
		if a != nil {
			got = int(a[2])<<8 | int(a[3])
		}
		if got != s.ack || done != s.done {
			t.Fatalf("step %d (block %d): ack %d done %v, want ack %d done %v", i, s.n, got, done, s.ack, s.done)
		}
	}
	if tr.total != 9*100+40 {
		t.Errorf("total = %d, want 940", tr.total)
	}
}

func TestWindowedClientFallsBackToLockStep(t *testing.T) {
	dir := t.TempDir()
	data := make([]byte, 100_000)
	rand.Read(data)
	if err := os.WriteFile(filepath.Join(dir, "f.bin"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	addr := startTFTPDHPA(t, dir)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Load{Server: addr, File: "f.bin", Size: int64(len(data)), Workers: 2, PerWorker: 2, BlkSize: 1468, Window: 8}.Run(ctx)
	if err != nil || res.Transfers != 4 || res.Errors != 0 {
		t.Fatalf("result %+v, %v; want 4 clean transfers", res, err)
	}
}
