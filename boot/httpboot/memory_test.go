package httpboot

import (
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sync"
	"testing"
)

// TestConcurrentInitrdsShareTheBase downloads 200 distinct per-host initrds
// at once from a 20 MiB base and checks, while every download is in flight,
// that the heap has not grown by anything like 200 copies of the base
// (4000 MiB): the base is streamed from disk, not held per request.
func TestConcurrentInitrdsShareTheBase(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 4 GiB over loopback")
	}
	const (
		clients   = 200
		baseSize  = 20 << 20
		maxGrowth = 64 << 20 // about 3 copies of the base, for 200 downloads
	)
	e := newEnv(t, baseSize, true)
	e.initrdData = nil // the test's own copy of the base must not count
	transport := &http.Transport{MaxIdleConnsPerHost: clients, DisableCompression: true}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport}

	before := heapInuse()
	var started, done sync.WaitGroup
	release := make(chan struct{})
	errs := make(chan error, clients)
	sizes := make([]int64, clients)
	started.Add(clients)
	for i := range clients {
		done.Go(func() {
			n, err := download(client, fmt.Sprintf("%s/boot/52-54-00-00-%02x-%02x/initrd", e.srv.URL, i/256, i%256), &started, release)
			sizes[i] = n
			if err != nil {
				errs <- err
			}
		})
	}
	started.Wait() // every client has its first bytes: 200 responses are in flight
	during := heapInuse()
	close(release)
	done.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i, n := range sizes {
		if n < baseSize {
			t.Fatalf("client %d got %d bytes, less than the base", i, n)
		}
	}
	growth := int64(during) - int64(before)
	t.Logf("heap in use: %d MiB before, %d MiB with %d downloads in flight", before>>20, during>>20, clients)
	if growth > maxGrowth {
		t.Errorf("heap grew by %d MiB with %d downloads of a %d MiB base in flight; want < %d MiB",
			growth>>20, clients, baseSize>>20, maxGrowth>>20)
	}
}

// download reads the first 64 KiB, reports it started, waits for release,
// then reads the rest; it returns the number of bytes read.
func download(client *http.Client, url string, started *sync.WaitGroup, release <-chan struct{}) (int64, error) {
	once := sync.OnceFunc(started.Done)
	defer once()
	resp, err := client.Get(url)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("%s: %s", url, resp.Status)
	}
	first, err := io.ReadFull(resp.Body, make([]byte, 64<<10))
	if err != nil {
		return int64(first), err
	}
	once()
	<-release
	rest, err := io.Copy(io.Discard, resp.Body)
	if err == nil && int64(first)+rest != resp.ContentLength {
		err = fmt.Errorf("%s: read %d bytes, Content-Length %d", url, int64(first)+rest, resp.ContentLength)
	}
	return int64(first) + rest, err
}

func heapInuse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}
