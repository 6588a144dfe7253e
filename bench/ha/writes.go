package main

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/rackboot/rackboot/testbed/ha"
)

// writeRow is one write run.
type writeRow struct {
	name          string
	ok, failed    int
	elapsed       time.Duration
	p50, p99, max time.Duration
}

func (w writeRow) rate() float64 { return float64(w.ok) / w.elapsed.Seconds() }

// writes runs the write load on a 1-appliance rack (through the service
// address) and a 3-appliance rack (through the service address, then
// spread over the appliances' own addresses).
func (b *bench) writes(ctx context.Context) ([]writeRow, error) {
	var rows []writeRow
	for _, n := range []int{1, 3} {
		r, err := b.newRack(ctx, n, "")
		if err != nil {
			return nil, err
		}
		row, err := b.writeRuns(ctx, r, n)
		r.Close()
		if err != nil {
			return nil, err
		}
		rows = append(rows, row...)
	}
	return rows, nil
}

func (b *bench) writeRuns(ctx context.Context, r *ha.Rack, n int) ([]writeRow, error) {
	api := ha.NewAPI(r.KeepAliveClient(10*time.Second, b.o.clients), r.Token())
	keys, _, err := ha.CreateKeys(ctx, api, ha.ServiceURL(), b.o.clients)
	if err != nil {
		return nil, err
	}
	runs := []struct {
		name    string
		targets []string
	}{{appliances(n) + ", through the service address", []string{ha.ServiceURL()}}}
	if n > 1 {
		var own []string
		for _, nd := range r.Nodes {
			own = append(own, nd.URL())
		}
		runs = append(runs, struct {
			name    string
			targets []string
		}{fmt.Sprintf("%d appliances, spread over their own addresses (followers forward)", n), own})
	}
	var rows []writeRow
	for _, run := range runs {
		b.log.Info("write run", "run", run.name, "clients", b.o.clients, "for", b.o.writeFor)
		rows = append(rows, writeLoad(ctx, api, keys, run.targets, b.o.writeFor, run.name))
	}
	return rows, nil
}

// writeLoad runs one client per key, each PATCHing its key in a loop
// through targets (round robin) for d.
func writeLoad(ctx context.Context, api *ha.API, keys, targets []string, d time.Duration, name string) writeRow {
	var (
		mu     sync.Mutex
		lat    []time.Duration
		failed int
		wg     sync.WaitGroup
	)
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	start := time.Now()
	for i, k := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			bad := 0
			for seq := 0; ctx.Err() == nil; seq++ {
				t0 := time.Now()
				code, _ := api.SetNTP(ctx, targets[(i+seq)%len(targets)], k, fmt.Sprintf("b%d-%d.ntp", i, seq))
				switch {
				case code == http.StatusCreated:
					mine = append(mine, time.Since(t0))
				case ctx.Err() == nil:
					bad++
				}
			}
			mu.Lock()
			lat = append(lat, mine...)
			failed += bad
			mu.Unlock()
		}()
	}
	wg.Wait()
	s := sorted(lat)
	row := writeRow{name: name, ok: len(s), failed: failed, elapsed: time.Since(start),
		p50: percentile(s, 50), p99: percentile(s, 99)}
	if len(s) > 0 {
		row.max = s[len(s)-1]
	}
	return row
}

func appliances(n int) string {
	if n == 1 {
		return "1 appliance"
	}
	return fmt.Sprintf("%d appliances", n)
}
