package ha

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"
)

// Workload is API clients writing and reading registers (the additional
// NTP sources of infra-envs) through the targets while faults run,
// recording every operation in a History.
type Workload struct {
	API     *API
	Keys    []string // infra-env ids
	Targets []string // base URLs: the service address, the nodes' own
	Clients int
	// Pause between one client's operations (default 20 ms).
	Pause time.Duration
	Hist  *History
}

// CreateKeys creates n infra-envs through base and returns their ids and
// initial register values.
func CreateKeys(ctx context.Context, api *API, base string, n int) ([]string, map[string]string, error) {
	initial := map[string]string{}
	var ids []string
	for i := range n {
		ntp := fmt.Sprintf("init-%d.ntp", i)
		ie, err := api.CreateInfraEnv(ctx, base, fmt.Sprintf("reg-%d", i), ntp)
		if err != nil {
			return nil, nil, err
		}
		ids = append(ids, ie.ID)
		initial[ie.ID] = ntp
	}
	return ids, initial, nil
}

// Run runs the clients until ctx is done.
func (w *Workload) Run(ctx context.Context) {
	if w.Pause == 0 {
		w.Pause = 20 * time.Millisecond
	}
	var wg sync.WaitGroup
	for c := range w.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.client(ctx, c)
		}()
	}
	wg.Wait()
}

func (w *Workload) client(ctx context.Context, id int) {
	rng := rand.New(rand.NewPCG(uint64(id), uint64(time.Now().UnixNano())))
	for seq := 0; ctx.Err() == nil; seq++ {
		key := w.Keys[rng.IntN(len(w.Keys))]
		target := w.Targets[rng.IntN(len(w.Targets))]
		if rng.IntN(2) == 0 {
			w.write(ctx, id, key, target, fmt.Sprintf("c%d-%d.ntp", id, seq))
		} else {
			w.read(ctx, id, key, target)
		}
		select {
		case <-ctx.Done():
		case <-time.After(w.Pause):
		}
	}
}

// write: 201 is acknowledged; 400, or a request that never reached a
// server, refused for certain; anything else (no answer, 5xx, a timeout,
// the run's end) leaves it open.
func (w *Workload) write(ctx context.Context, client int, key, target, value string) {
	call := w.Hist.Now()
	code, err := w.API.SetNTP(ctx, target, key, value)
	ret := w.Hist.Now()
	refused := code == http.StatusBadRequest || errors.Is(err, ErrNotSent)
	w.Hist.Write(client, key, value, target, call, ret, code == http.StatusCreated, !refused)
}

// read records a GET that answered 200; others tell nothing.
func (w *Workload) read(ctx context.Context, client int, key, target string) {
	call := w.Hist.Now()
	ie, code, err := w.API.GetInfraEnv(ctx, target, key)
	ret := w.Hist.Now()
	if err == nil && code == http.StatusOK {
		w.Hist.Read(client, key, ie.NTP, target, call, ret)
	}
}

// FinalReads reads every key once through base and records it: the check
// then also says that no acknowledged write was lost.
func (w *Workload) FinalReads(ctx context.Context, base string) error {
	for _, k := range w.Keys {
		call := w.Hist.Now()
		ie, _, err := w.API.GetInfraEnv(ctx, base, k)
		if err != nil {
			return err
		}
		w.Hist.Read(w.Clients, k, ie.NTP, base, call, w.Hist.Now())
	}
	return nil
}
